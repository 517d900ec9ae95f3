// Passwords are kept as argon2id hashes at OWASP's recommended cost (Password Storage Cheat
// Sheet: m = 19 MiB, t = 2, p = 1). Bun's default (64 MiB, t = 2) took 0.4 to 1 s per sign-up
// on a busy 2-core host, most of the time a new user waited for the dashboard; this one takes
// a fifth of that. A hash of another cost still verifies (the cost is in the hash) and is
// replaced at the next sign-in, so that old and new accounts cost the same to check.

const MEMORY_KIB = 19_456;
const TIME_COST = 2;

export const hashPassword = (password: string): Promise<string> =>
  Bun.password.hash(password, { algorithm: "argon2id", memoryCost: MEMORY_KIB, timeCost: TIME_COST });

/** Whether `hash` (a PHC string such as `$argon2id$v=19$m=19456,t=2,p=1$…`) was made at today's cost. */
export function hashIsCurrent(hash: string): boolean {
  const params = /^\$argon2id\$v=\d+\$m=(\d+),t=(\d+),p=\d+\$/.exec(hash);
  return params !== null && Number(params[1]) === MEMORY_KIB && Number(params[2]) === TIME_COST;
}
