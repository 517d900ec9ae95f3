import type { FoundSession, NewSession, SessionStore } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import { exec, first, int, intOrNull, type Work } from "../../sql.ts";
import { ACCOUNT_COLUMNS, accountFromRow } from "../rows.ts";

function* createSession(input: NewSession): Work<void> {
  // An account's expired sessions go as a new one starts, so the table does not grow without bound.
  yield* exec("DELETE FROM sessions WHERE account_id = ? AND expires_at <= ?", input.accountId, input.now);
  yield* exec(
    "INSERT INTO sessions (token_hash, account_id, created_at, expires_at, last_seen_at, ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?)",
    input.tokenHash, input.accountId, input.now, input.expiresAt, input.now, input.ip ?? null, input.userAgent ?? null,
  );
}

// The session and its account in one round trip; the account columns are null when its row is gone.
const SESSION_WITH_ACCOUNT = `SELECT s.account_id AS session_account_id, s.expires_at AS session_expires_at,
  s.last_seen_at AS session_last_seen_at, ${ACCOUNT_COLUMNS.replace(/(\w+)/g, "a.$1")}
  FROM sessions s LEFT JOIN accounts a ON a.id = s.account_id
  WHERE s.token_hash = ? AND s.expires_at > ?`;

function* findSession(tokenHash: string, now: number): Work<FoundSession | null> {
  const row = yield* first(SESSION_WITH_ACCOUNT, tokenHash, now);
  if (!row) return null;
  return {
    accountId: row.session_account_id as string,
    account: row.id === null ? null : accountFromRow(row),
    expiresAt: int(row.session_expires_at),
    lastSeenAt: intOrNull(row.session_last_seen_at),
  };
}

export const sessionStore = (db: Database): SessionStore => ({
  createSession: (input) => db.transaction(createSession(input)),
  findSession: (tokenHash, now) => db.run(findSession(tokenHash, now)),
  deleteSession: async (tokenHash) => {
    await db.run(exec("DELETE FROM sessions WHERE token_hash = ?", tokenHash));
  },
});
