import type { Command } from "commander";
import { parseGrant } from "../../core/admin/rules.ts";
import { isAppError } from "../../core/errors.ts";
import { nanos } from "../../core/money.ts";
import { cliActor, withStore } from "../context.ts";
import { CliError, exactUsd, printJson, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount, usdFlag } from "../args.ts";
import { grantRecord } from "../records.ts";

/** The console's rules for a grant (at most 1,000,000 USD either way, the note's length), its refusals naming the flags. */
function consoleGrant(usd: string, note: string) {
  try {
    return parseGrant({ usd, note });
  } catch (error) {
    if (isAppError(error)) throw new CliError(error.message.replace(/^usd /, "--usd ").replace(/^note /, "--note "));
    throw error;
  }
}

export function registerCredits(program: Command, output: () => Output): void {
  const credits = program.command("credits").description("an account's credits: grant, show");

  credits
    .command("grant")
    .description("add credits (a negative amount takes them away, as an adjustment)")
    .requiredOption("--email <email>", "the account's e-mail")
    .requiredOption("--usd <amount>", "USD to add, e.g. 25 or -2.50")
    .option("--note <text>", "why, kept in the ledger")
    .option("--allow-negative", "let an adjustment take the balance below zero")
    .action(async (opts: { email: string; usd: string; note?: string; allowNegative?: boolean }) => {
      usdFlag("--usd", opts.usd, (value) => value !== 0n, "a non-zero USD amount", true);
      const { amount, kind, note } = consoleGrant(opts.usd, opts.note ?? "granted by the operator");
      await withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        const now = Date.now();
        // The balance check, the ledger entry and its audit event are one transaction.
        const result = await store.addCreditAudited({ accountId: account.id, amount, kind, note, now }, {
          accountId: account.id, type: "credits_granted", ip: null, at: now,
          detail: `${kind} of ${exactUsd(amount)} USD by ${cliActor()}: ${note}`,
        }, { keepNonNegative: opts.allowNegative !== true });
        if (result?.refused) {
          throw new CliError(`an adjustment of ${exactUsd(amount)} USD would take the balance of ${exactUsd(result.balance)} USD below zero `
            + "(--allow-negative to do it anyway); nothing was changed");
        }
        const balance = result?.balance ?? account.balance;
        // As POST /admin/accounts/{email}/credits answers it.
        printResult(
          output(),
          { email: account.email, ...grantRecord({ amount, kind, note }, balance) },
          `${kind} of ${exactUsd(amount)} USD to ${account.email}; balance ${exactUsd(balance)} USD`,
        );
      });
    });

  credits
    .command("show")
    .description("balance, reserved, available, and the ledger's own sum (equal to the balance)")
    .requiredOption("--email <email>", "the account's e-mail")
    .action(async (opts: { email: string }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        const view = {
          email: account.email,
          balanceUsd: exactUsd(account.balance),
          reservedUsd: exactUsd(account.reserved),
          availableUsd: exactUsd(nanos(account.balance - account.reserved)),
          ledgerSumUsd: exactUsd(await store.ledgerSum(account.id)),
        };
        if (output().json) return printJson(view);
        printRecords(output(), [view], (v) => v, {
          email: (v) => v.email,
          "balance USD": (v) => v.balanceUsd,
          "reserved USD": (v) => v.reservedUsd,
          "available USD": (v) => v.availableUsd,
          "ledger sum USD": (v) => v.ledgerSumUsd,
        });
      }),
    );
}
