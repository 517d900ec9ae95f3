import type { Command } from "commander";
import { auditPage, parseAuditPage } from "../../core/accounts/audit.ts";
import { freeCreditOffer } from "../../core/accounts/sign-in.ts";
import { cliActor, withStore } from "../context.ts";
import { CliError, exactUsd, printJson, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";
import { accountRecord } from "../records.ts";

/** `users verify E` and `users audit E`: the operator's side of e-mail verification and the audit log. */
export function registerAccountSecurity(users: Command, output: () => Output): void {
  users
    .command("verify <email>")
    .description("mark the account's e-mail verified (as its link would; the free credits follow the same rules)")
    .action(async (email: string) =>
      withStore({}, async ({ config, store }) => {
        const account = await requireAccount(store, email);
        const now = Date.now();
        const policy = { amount: config.freeCredits, perIpPerDay: config.freeCreditsPerIpPerDay };
        const verified = await store.verifyAccount(account.id, { offer: (a) => freeCreditOffer(a, policy, now), now, by: `by ${cliActor()}` });
        if (!verified) throw new CliError(`no account with e-mail "${email}"`);
        const credits = verified.freeCreditsGranted ? `; free credits granted, balance ${exactUsd(verified.account.balance)} USD` : "";
        printResult(output(), accountRecord(verified.account), `${verified.account.email} verified${credits}`);
      }),
    );

  users
    .command("audit <email>")
    .description("the account's security events, newest first, 50 a page")
    .option("--page <n>", "page number", "1")
    .action(async (email: string, opts: { page: string }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, email);
        let page: number;
        try {
          page = parseAuditPage(opts.page);
        } catch (error) {
          throw new CliError(`--page: ${(error as Error).message}`);
        }
        const result = await auditPage(store, account.id, page);
        // As GET /account/audit answers it: the page's events and whether another follows.
        if (output().json) return printJson(result);
        printRecords(output(), result.events, (e) => e, {
          at: (e) => e.at,
          type: (e) => e.type,
          ip: (e) => e.ip ?? "-",
          detail: (e) => e.detail ?? "",
        });
        if (result.hasMore) console.log(`(more: --page ${page + 1})`);
      }),
    );
}
