import type { Command } from "commander";
import { accountState } from "../../core/accounts/state.ts";
import { emailSkeleton } from "../../core/accounts/email-skeleton.ts";
import { hashPassword, parseNewEmail, parsePassword } from "../../core/accounts/sign-in.ts";
import { formatUsd } from "../../core/money.ts";
import type { Account, AccountChange } from "../../core/store.ts";
import { requireAccount, usdFlag } from "../args.ts";
import { withStore } from "../context.ts";
import { readPassword } from "../password.ts";
import { registerAccountSecurity } from "./users-security.ts";
import { CliError, printRecords, printResult, type Output } from "../output.ts";

const userView = (a: Account) => ({
  id: a.id,
  email: a.email,
  state: accountState(a),
  emailVerified: a.emailVerifiedAt !== null,
  twoFactor: a.totpEnabledAt !== null,
  admin: a.isAdmin,
  balanceUsd: formatUsd(a.balance, 6),
  reservedUsd: formatUsd(a.reserved, 6),
  createdAt: new Date(a.createdAt).toISOString(),
});

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
      const credits = usdFlag("--credits", opts.credits, (amount) => amount >= 0n, "a non-negative USD amount");
      await withStore({}, async ({ store }) => {
        const account = await store.createAccount({
          email, emailSkeleton: emailSkeleton(email), passwordHash, initialCredits: { amount: credits, note: "granted by the operator at creation" },
          isAdmin: opts.admin === true, now: Date.now(),
        });
        // A look-alike of an account's e-mail (email-skeleton.ts) is taken as the e-mail itself is.
        if (!account) throw new CliError(`an account with e-mail "${email}" already exists`);
        printResult(output(), userView(account), `created ${email} with ${formatUsd(account.balance, 6)} USD`);
      });
    });

  users
    .command("list")
    .description("list every account, deleted and banned ones included")
    .action(async () =>
      withStore({}, async ({ store }) => {
        printRecords(output(), (await store.listAccounts()).map(userView), {
          email: (u) => u.email,
          state: (u) => u.state,
          admin: (u) => (u.admin ? "yes" : ""),
          "balance USD": (u) => u.balanceUsd,
          "reserved USD": (u) => u.reservedUsd,
          verified: (u) => (u.emailVerified ? "yes" : "no"),
          "2FA": (u) => (u.twoFactor ? "on" : "off"),
          created: (u) => u.createdAt,
        });
      }),
    );

  // Each change keeps an earlier ban or deletion time rather than moving it. Bans are audited.
  const change = (verb: string, patch: (account: Account, now: number) => AccountChange, audit?: "banned" | "unbanned") =>
    async (email: string) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, email);
        const now = Date.now();
        const updated = await store.updateAccount(account.id, patch(account, now));
        if (!updated) throw new CliError(`no account with e-mail "${email}"`);
        if (audit) await store.recordAudit({ accountId: account.id, type: audit, ip: null, detail: "by the operator", at: now });
        printResult(output(), userView(updated), `${updated.email} ${verb}`);
      });

  users.command("ban <email>").description("refuse the account's sign-ins and API requests (403)")
    .action(change("banned", (a, now) => ({ bannedAt: a.bannedAt ?? now }), "banned"));
  users.command("unban <email>").description("lift a ban")
    .action(change("unbanned", () => ({ bannedAt: null }), "unbanned"));
  users.command("delete <email>").description("mark the account deleted; nothing is erased")
    .action(change("deleted", (a, now) => ({ deletedAt: a.deletedAt ?? now })));
  registerAccountSecurity(users, output);
  users.command("promote <email>").description("make the account an operator (the console at /dashboard/admin)")
    .action(change("promoted to operator", () => ({ isAdmin: true })));
  users.command("demote <email>").description("take the operator role away")
    .action(change("demoted", () => ({ isAdmin: false })));
}
