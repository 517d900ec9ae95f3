import { emailSkeleton, freeCreditSkeleton } from "../../../core/accounts/email-skeleton.ts";
import { exec, rows, type Work } from "../../sql.ts";

// The keys of one account and one free-credit claim per look-alike address, given to the rows
// made before there were keys: when the migration that adds them is applied, in its transaction.

/** The migration that adds `email_skeleton` to accounts and free-credit claims. */
export const EMAIL_SKELETON_MIGRATION = "0014_email_skeletons";

/**
 * Gives each row its key, oldest first: of several rows with one key, the earliest keeps it and
 * the later ones (look-alikes made before the rule) keep their address and a null key, so no one
 * loses an account, and the earliest is the one a look-alike sign-up is now refused against.
 */
function* fill(table: "accounts" | "free_credit_claims", found: { id: string; email: string }[], keyOf: (email: string) => string): Work<number> {
  const taken = new Set<string>();
  const column = table === "accounts" ? "id" : "email";
  for (const row of found) {
    const key = keyOf(row.email);
    if (taken.has(key)) continue;
    taken.add(key);
    yield* exec(`UPDATE ${table} SET email_skeleton = ? WHERE ${column} = ?`, key, row.id);
  }
  return taken.size;
}

/** Fills `email_skeleton` of existing people and free-credit claims (organizations have none: their e-mail is a placeholder). */
export function* fillEmailSkeletons(): Work<void> {
  const people = yield* rows<{ id: string; email: string }>(
    "SELECT id, email FROM accounts WHERE kind = 'person' AND email_skeleton IS NULL ORDER BY created_at, id",
  );
  yield* fill("accounts", people, emailSkeleton);
  // A claim's `email` is the free-credit identity it was made under, to which the key applies as to the address.
  const claims = yield* rows<{ id: string; email: string }>(
    "SELECT email AS id, email FROM free_credit_claims WHERE email_skeleton IS NULL ORDER BY created_at, email",
  );
  yield* fill("free_credit_claims", claims, freeCreditSkeleton);
}
