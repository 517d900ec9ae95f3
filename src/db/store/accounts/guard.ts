import type { AccountSecurityStore, SessionRecord, TotpState } from "../../../core/accounts/store.ts";
import type { StoredSecrets } from "../../../core/stored-secrets.ts";
import type { Database } from "../../database.ts";
import { exec, first, int, intOrNull, rows, type Row, type Work } from "../../sql.ts";
import { recordAudit } from "./audit.ts";

// The session list and two-factor sign-in: what guards an account once its password is known.
// TOTP secrets are kept encrypted (core/stored-secrets.ts): written sealed, read back opened.

const toSession = (r: Row): SessionRecord => ({
  tokenHash: r.token_hash as string,
  createdAt: int(r.created_at),
  lastSeenAt: intOrNull(r.last_seen_at),
  expiresAt: int(r.expires_at),
  ip: (r.ip as string | null) ?? null,
  userAgent: (r.user_agent as string | null) ?? null,
});

function* listSessions(accountId: string, now: number): Work<SessionRecord[]> {
  const found = yield* rows(
    `SELECT token_hash, created_at, last_seen_at, expires_at, ip, user_agent FROM sessions
     WHERE account_id = ? AND expires_at > ? ORDER BY created_at DESC, token_hash`,
    accountId, now,
  );
  return found.map(toSession);
}

type EndInput = Parameters<AccountSecurityStore["endSessions"]>[0];

function* endSessions(input: EndInput): Work<number> {
  let ended = 0;
  for (const tokenHash of input.tokenHashes) {
    // The account is matched too: a session of another account is never ended from here.
    const gone = yield* first("DELETE FROM sessions WHERE token_hash = ? AND account_id = ? RETURNING token_hash", tokenHash, input.accountId);
    if (!gone) continue;
    ended++;
    yield* recordAudit({ accountId: input.accountId, type: "session_ended", ip: input.ip, detail: input.detail, at: input.now });
  }
  return ended;
}

function* totpState(accountId: string, secrets: StoredSecrets): Work<TotpState> {
  const row = yield* first("SELECT totp_secret, totp_pending_secret, totp_last_step FROM accounts WHERE id = ?", accountId);
  const opened = (stored: unknown) => (typeof stored === "string" ? secrets.open("totp", stored) : null);
  return {
    secret: opened(row?.totp_secret),
    pendingSecret: opened(row?.totp_pending_secret),
    lastStep: intOrNull(row?.totp_last_step),
  };
}

type EnableInput = Parameters<AccountSecurityStore["enableTotp"]>[0];

function* enableTotp(input: EnableInput, secrets: StoredSecrets): Work<boolean> {
  // The pending secret is matched by what it opens to (each sealing differs), then by the very
  // value read, so that a set-up begun again meanwhile is not turned on.
  const pending = (yield* first("SELECT totp_pending_secret FROM accounts WHERE id = ?", input.accountId))?.totp_pending_secret;
  if (typeof pending !== "string" || secrets.open("totp", pending) !== input.secret) return false;
  const enabled = yield* first(
    `UPDATE accounts SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled_at = ?, totp_last_step = ?
     WHERE id = ? AND totp_secret IS NULL AND totp_pending_secret = ? RETURNING id`,
    input.now, input.step, input.accountId, pending,
  );
  if (!enabled) return false;
  yield* exec("DELETE FROM recovery_codes WHERE account_id = ?", input.accountId);
  for (const codeHash of input.codeHashes) {
    yield* exec("INSERT INTO recovery_codes (code_hash, account_id, created_at) VALUES (?, ?, ?)", codeHash, input.accountId, input.now);
  }
  yield* recordAudit({ accountId: input.accountId, type: "totp_enabled", ip: input.ip, detail: `${input.codeHashes.length} recovery codes`, at: input.now });
  return true;
}

function* disableTotp(input: { accountId: string; ip: string; now: number }): Work<void> {
  const disabled = yield* first(
    `UPDATE accounts SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL
     WHERE id = ? AND totp_secret IS NOT NULL RETURNING id`,
    input.accountId,
  );
  if (!disabled) return;
  yield* exec("DELETE FROM recovery_codes WHERE account_id = ?", input.accountId);
  yield* recordAudit({ accountId: input.accountId, type: "totp_disabled", ip: input.ip, detail: null, at: input.now });
}

export const accountGuardStore = (db: Database, secrets: StoredSecrets) => ({
  listSessions: (accountId: string, now: number) => db.run(listSessions(accountId, now)),
  endSessions: (input: EndInput) => db.transaction(endSessions(input)),
  touchSession: async (tokenHash: string, lastSeenAt: number, expiresAt: number) => {
    await db.run(exec("UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?", lastSeenAt, expiresAt, tokenHash));
  },
  totpState: (accountId: string) => db.run(totpState(accountId, secrets)),
  setPendingTotp: async (accountId: string, secret: string) => {
    const sealed = secrets.seal("totp", secret);
    await db.run(exec("UPDATE accounts SET totp_pending_secret = ? WHERE id = ? AND totp_secret IS NULL", sealed, accountId));
  },
  enableTotp: (input: EnableInput) => db.transaction(enableTotp(input, secrets)),
  disableTotp: (input: { accountId: string; ip: string; now: number }) => db.transaction(disableTotp(input)),
  // Replays are refused by the condition: a step at or before the last one accepted never passes.
  acceptTotpStep: async (accountId: string, step: number) =>
    (await db.run(first(
      "UPDATE accounts SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?) RETURNING id",
      step, accountId, step,
    ))) !== undefined,
  useRecoveryCode: async (accountId: string, codeHash: string, now: number) =>
    (await db.run(first(
      "UPDATE recovery_codes SET used_at = ? WHERE code_hash = ? AND account_id = ? AND used_at IS NULL RETURNING code_hash",
      now, codeHash, accountId,
    ))) !== undefined,
  recoveryCodesLeft: async (accountId: string) =>
    int((await db.run(first("SELECT COUNT(*) AS n FROM recovery_codes WHERE account_id = ? AND used_at IS NULL", accountId)))?.n),
});
