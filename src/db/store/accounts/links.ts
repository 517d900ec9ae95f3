import type { AccountSecurityStore, NewLinkToken, NewSignUp } from "../../../core/accounts/store.ts";
import type { Account, FreeCreditOffer } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import type { Dialect } from "../../migration-files.ts";
import { exec, first, int, type Work } from "../../sql.ts";
import { appendLedger, getAccount } from "./records.ts";
import { queueAccountMail } from "../alerts.ts";
import { recordAudit } from "./audit.ts";
import { lockScope } from "./rate-limits.ts";
import { ACCOUNT_COLUMNS, accountFromRow } from "../rows.ts";

// Sign-up, e-mail verification and password recovery: the link tokens (stored as hashes only),
// the e-mails that carry them (through the outbox), and what using a link does.

function* insertLink(accountId: string, email: string, purpose: "verify" | "reset", link: NewLinkToken, now: number): Work<void> {
  yield* exec(
    "INSERT INTO auth_tokens (token_hash, account_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
    link.tokenHash, accountId, purpose, now, link.expiresAt,
  );
  yield* queueAccountMail(accountId, email, link.mail, now);
}

/**
 * Uses a link once: the UPDATE both checks and spends it, so of two requests with the same
 * link only one gets the account. Unknown, used, expired or other-purpose links answer null.
 */
function* useLink(tokenHash: string, purpose: "verify" | "reset", now: number): Work<string | null> {
  const row = yield* first(
    `UPDATE auth_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
     RETURNING account_id`,
    now, tokenHash, purpose, now,
  );
  return row ? (row.account_id as string) : null;
}

function* signUp(input: NewSignUp): Work<Account | null> {
  const id = Bun.randomUUIDv7();
  const row = yield* first(
    // No conflict target: a taken e-mail and a taken look-alike key both insert nothing.
    `INSERT INTO accounts (id, email, email_skeleton, password_hash, created_at, signup_ip) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
    id, input.email, input.emailSkeleton, input.passwordHash, input.now, input.client.ip,
  );
  if (!row) return null;
  yield* insertLink(id, input.email, "verify", input.verification, input.now);
  yield* recordAudit({ accountId: id, type: "signup", ip: input.client.ip, detail: null, at: input.now });
  return accountFromRow(row);
}

function* queueVerification(accountId: string, link: NewLinkToken, now: number): Work<boolean> {
  const account = yield* first("SELECT email FROM accounts WHERE id = ? AND email_verified_at IS NULL AND deleted_at IS NULL", accountId);
  if (!account) return false;
  yield* insertLink(accountId, account.email as string, "verify", link, now);
  return true;
}

/**
 * Grants the free credits unless the e-mail identity or its look-alike key has claimed them before or the sign-up's
 * IP has had its share today. The count, the claim and the grant happen under one lock on the
 * IP's scope, so concurrent verifications (on any instance) cannot both take the last place.
 */
export function* claimFreeCredits(dialect: Dialect, accountId: string, offer: FreeCreditOffer, now: number): Work<boolean> {
  if (offer.perIpPerDay <= 0) return false;
  yield* lockScope(dialect, offer.ipScope);
  yield* exec("DELETE FROM rate_events WHERE scope = ? AND at < ?", offer.ipScope, offer.dayStart);
  const today = yield* first("SELECT COUNT(*) AS n FROM rate_events WHERE scope = ?", offer.ipScope);
  if (int(today?.n) >= offer.perIpPerDay) return false;
  const claimed = yield* first(
    // No conflict target: a claim by the identity or by its key (a look-alike, a +tag) refuses this one.
    `INSERT INTO free_credit_claims (email, email_skeleton, account_id, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT DO NOTHING RETURNING email`,
    offer.identity, offer.emailSkeleton, accountId, now,
  );
  if (!claimed) return false;
  yield* exec("INSERT INTO rate_events (id, scope, at) VALUES (?, ?, ?)", Bun.randomUUIDv7(), offer.ipScope, now);
  yield* appendLedger({
    accountId, amount: offer.amount, kind: "grant", note: "free credits on e-mail verification",
    idempotencyKey: `free-credits:${offer.identity}`, now,
  });
  return true;
}

type VerifyInput = Parameters<AccountSecurityStore["verifyEmail"]>[0];
type Verified = { account: Account; freeCreditsGranted: boolean };

/**
 * Marks the account's e-mail verified, audits it, and grants the free credits when `offer`
 * makes one and it is still available. Only the first verification counts: a later one (a
 * second link, the operator's CLI) changes nothing.
 */
type MarkInput = Omit<VerifyInput, "tokenHash" | "ip"> & { ip: string | null; by: string };

function* markVerified(dialect: Dialect, accountId: string, input: MarkInput): Work<Verified | null> {
  const verified = yield* first(
    `UPDATE accounts SET email_verified_at = ? WHERE id = ? AND email_verified_at IS NULL RETURNING ${ACCOUNT_COLUMNS}`,
    input.now, accountId,
  );
  if (!verified) {
    const account = yield* getAccount(accountId);
    return account ? { account, freeCreditsGranted: false } : null;
  }
  const account = accountFromRow(verified);
  yield* recordAudit({ accountId, type: "email_verified", ip: input.ip, detail: `${account.email} ${input.by}`, at: input.now });
  const offer = input.offer(account);
  if (!offer || !(yield* claimFreeCredits(dialect, accountId, offer, input.now))) return { account, freeCreditsGranted: false };
  yield* recordAudit({ accountId, type: "credits_granted", ip: input.ip, detail: "free credits on e-mail verification", at: input.now });
  return { account: (yield* getAccount(accountId)) ?? account, freeCreditsGranted: true };
}

function* verifyEmail(dialect: Dialect, input: VerifyInput): Work<Verified | null> {
  const accountId = yield* useLink(input.tokenHash, "verify", input.now);
  return accountId === null ? null : yield* markVerified(dialect, accountId, { ...input, by: "from the e-mailed link" });
}

type ResetRequest = Parameters<AccountSecurityStore["queuePasswordReset"]>[0];

function* queuePasswordReset(input: ResetRequest): Work<boolean> {
  const account = yield* first("SELECT id, email FROM accounts WHERE email = ? AND deleted_at IS NULL", input.email);
  if (!account) return false;
  const id = account.id as string;
  const recent = yield* first(
    "SELECT COUNT(*) AS n FROM auth_tokens WHERE account_id = ? AND purpose = 'reset' AND created_at > ?",
    id, input.now - 60 * 60 * 1000,
  );
  if (int(recent?.n) >= input.perHour) return false;
  yield* insertLink(id, account.email as string, "reset", input.link, input.now);
  return true;
}

type ResetInput = Parameters<AccountSecurityStore["resetPassword"]>[0];

function* resetPassword(input: ResetInput): Work<{ accountId: string } | null> {
  const accountId = yield* useLink(input.tokenHash, "reset", input.now);
  if (accountId === null) return null;
  yield* exec("UPDATE accounts SET password_hash = ? WHERE id = ?", input.passwordHash, accountId);
  // Whoever knew the old password (or held a session) is out; the other reset links die too.
  yield* exec("DELETE FROM sessions WHERE account_id = ?", accountId);
  yield* exec("UPDATE auth_tokens SET used_at = ? WHERE account_id = ? AND purpose = 'reset' AND used_at IS NULL", input.now, accountId);
  yield* recordAudit({ accountId, type: "password_reset", ip: input.ip, detail: "every session ended", at: input.now });
  return { accountId };
}

type ChangeInput = Parameters<AccountSecurityStore["changePassword"]>[0];

function* changePassword(input: ChangeInput): Work<void> {
  yield* exec("UPDATE accounts SET password_hash = ? WHERE id = ?", input.passwordHash, input.accountId);
  yield* exec("DELETE FROM sessions WHERE account_id = ? AND token_hash <> ?", input.accountId, input.keep);
  yield* exec("UPDATE auth_tokens SET used_at = ? WHERE account_id = ? AND purpose = 'reset' AND used_at IS NULL", input.now, input.accountId);
  yield* recordAudit({ accountId: input.accountId, type: "password_changed", ip: input.ip, detail: "other sessions ended", at: input.now });
}

export const accountLinkStore = (db: Database) => ({
  signUp: (input: NewSignUp) => db.transaction(signUp(input)),
  queueVerification: (accountId: string, link: NewLinkToken, now: number) => db.transaction(queueVerification(accountId, link, now)),
  verifyEmail: (input: VerifyInput) => db.transaction(verifyEmail(db.dialect, input)),
  verifyAccount: (accountId: string, input: Omit<MarkInput, "ip">) =>
    db.transaction(markVerified(db.dialect, accountId, { ...input, ip: null })),
  queuePasswordReset: (input: ResetRequest) => db.transaction(queuePasswordReset(input)),
  resetPassword: (input: ResetInput) => db.transaction(resetPassword(input)),
  changePassword: (input: ChangeInput) => db.transaction(changePassword(input)),
  rehashPassword: (accountId: string, passwordHash: string) =>
    db.transaction(exec("UPDATE accounts SET password_hash = ? WHERE id = ?", passwordHash, accountId)),
});
