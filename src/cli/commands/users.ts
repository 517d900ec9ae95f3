import type { Command } from "commander";
import { accountState } from "../../core/accounts/state.ts";
import { emailSkeleton } from "../../core/accounts/email-skeleton.ts";
import { hashPassword, parseNewEmail, parsePassword } from "../../core/accounts/sign-in.ts";
import type { Account, AccountChange } from "../../core/store.ts";
import type { AuditEventType, NewAuditEvent } from "../../core/accounts/audit.ts";
import { NANOS_PER_USD, type Nanos } from "../../core/money.ts";
import { MAX_GRANT_USD } from "../../core/admin/rules.ts";
import { requireAccount, usdFlag } from "../args.ts";
import { cliActor, withStore } from "../context.ts";
import { readPassword } from "../password.ts";
import { registerAccountSecurity } from "./users-security.ts";
import { CliError, exactUsd, printRecords, printResult, type Output } from "../output.ts";
import { accountRecord } from "../records.ts";

/** The table `users list` prints; --json prints each account as the console's API lists it. */
const USER_COLUMNS: Record<string, (a: Account) => string> = {
  email: (a) => a.email,
  state: (a) => accountState(a),
  admin: (a) => (a.isAdmin ? "yes" : ""),
  "balance USD": (a) => exactUsd(a.balance),
  "reserved USD": (a) => exactUsd(a.reserved),
  verified: (a) => (a.emailVerifiedAt !== null ? "yes" : "no"),
  "2FA": (a) => (a.totpEnabledAt !== null ? "on" : "off"),
  created: (a) => new Date(a.createdAt).toISOString(),
};

/** What `users create` records: the account, by whom and as what, and the credits it was given. */
function creationAudit(accountId: string, credits: Nanos, admin: boolean, at: number, note: string): NewAuditEvent[] {
  const by = `by ${cliActor()}`;
  const made: NewAuditEvent = { accountId, type: "account_created", ip: null, at, detail: `${admin ? "operator " : ""}${by}` };
  if (credits === 0n) return [made];
  return [made, { accountId, type: "credits_granted", ip: null, at, detail: `grant of ${exactUsd(credits)} USD ${by}: ${note}` }];
}

export function registerUsers(program: Command, output: () => Output): void {
  const users = program.command("users").description("accounts: create, list, ban, unban, delete, verify, audit, promote, demote");

  users
    .command("create")
    .description("create an account (it gets exactly --credits, no sign-up bonus); on a terminal, asks for its password")
    .requiredOption("--email <email>", "the account's e-mail")
    .option("--password-stdin", "read the dashboard password (10 to 200 characters) from standard input")
    .option("--password <password>", "the password on the command line: other users of the machine can see it (prefer --password-stdin)")
    .option("--credits <usd>", "credits granted at creation", "0")
    .option("--admin", "make the account an operator (the console at /dashboard/admin)")
    .action(async (opts: { email: string; password?: string; passwordStdin?: boolean; credits: string; admin?: boolean }) => {
      const email = parseNewEmail(opts.email);
      const password = await readPassword(opts);
      const passwordHash = password === undefined ? null : await hashPassword(parsePassword(password));
      const credits = usdFlag("--credits", opts.credits, (amount) => amount >= 0n && amount <= MAX_GRANT_USD * NANOS_PER_USD,
        `a USD amount from 0 to ${MAX_GRANT_USD}`);
      await withStore({}, async ({ store }) => {
        const note = "granted by the operator at creation";
        const now = Date.now();
        const account = await store.createAccount({
          email, emailSkeleton: emailSkeleton(email), passwordHash, initialCredits: { amount: credits, note }, isAdmin: opts.admin === true, now,
          audit: (accountId) => creationAudit(accountId, credits, opts.admin === true, now, note),
        });
        // A look-alike of an account's e-mail (email-skeleton.ts) is taken as the e-mail itself is.
        if (!account) throw new CliError(`an account with e-mail "${email}" already exists`);
        printResult(output(), accountRecord(account), `created ${email} with ${exactUsd(account.balance)} USD`);
      });
    });

  users
    .command("list")
    .description("list every account, deleted and banned ones included")
    .action(async () =>
      withStore({}, async ({ store }) => {
        printRecords(output(), await store.listAccounts(), accountRecord, USER_COLUMNS);
      }),
    );

  // Each change keeps an earlier ban or deletion time rather than moving it. The change and its
  // audit event are one transaction: none goes unrecorded.
  const change = (verb: string, patch: (account: Account, now: number) => AccountChange, type: AuditEventType) =>
    async (email: string) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, email);
        const now = Date.now();
        const audit = { accountId: account.id, type, ip: null, detail: `by ${cliActor()}`, at: now };
        const updated = await store.updateAccountAudited(account.id, patch(account, now), audit);
        if (!updated) throw new CliError(`no account with e-mail "${email}"`);
        printResult(output(), accountRecord(updated), `${updated.email} ${verb}`);
      });

  users.command("ban <email>").description("refuse the account's sign-ins and API requests (403)")
    .action(change("banned", (a, now) => ({ bannedAt: a.bannedAt ?? now }), "banned"));
  users.command("unban <email>").description("lift a ban")
    .action(change("unbanned", () => ({ bannedAt: null }), "unbanned"));
  users.command("delete <email>").description("mark the account deleted; nothing is erased")
    .action(change("deleted", (a, now) => ({ deletedAt: a.deletedAt ?? now }), "account_deleted"));
  registerAccountSecurity(users, output);
  users.command("promote <email>").description("make the account an operator (the console at /dashboard/admin)")
    .action(change("promoted to operator", () => ({ isAdmin: true }), "promoted"));
  users.command("demote <email>").description("take the operator role away")
    .action(change("demoted", () => ({ isAdmin: false }), "demoted"));
}
