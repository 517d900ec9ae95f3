import type { SignInDeviceStore } from "../../../core/accounts/sign-in-devices.ts";
import type { Database } from "../../database.ts";
import { exec, first, type Work } from "../../sql.ts";

// The browsers that signed in to an account (device cookies): link tokens of purpose `device`
// in auth_tokens, stored as SHA-256 hashes only, as the e-mailed links' are; never "used".

type Remembered = Parameters<SignInDeviceStore["rememberSignInDevice"]>[0];

function* remember(input: Remembered): Work<void> {
  yield* exec("DELETE FROM auth_tokens WHERE account_id = ? AND purpose = 'device' AND expires_at <= ?", input.accountId, input.now);
  yield* exec(
    `INSERT INTO auth_tokens (token_hash, account_id, purpose, created_at, expires_at) VALUES (?, ?, 'device', ?, ?)
     ON CONFLICT (token_hash) DO UPDATE SET expires_at = excluded.expires_at`,
    input.tokenHash, input.accountId, input.now, input.expiresAt,
  );
}

export const signInDeviceStore = (db: Database): SignInDeviceStore => ({
  findSignInDevice: async (tokenHash, now) => {
    const row = await db.run(first("SELECT account_id FROM auth_tokens WHERE token_hash = ? AND purpose = 'device' AND expires_at > ?", tokenHash, now));
    return row ? (row.account_id as string) : null;
  },
  rememberSignInDevice: (input) => db.transaction(remember(input)),
});
