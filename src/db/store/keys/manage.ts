import { and, count, desc, eq, gt, isNull, min } from "drizzle-orm";
import { keyStatus } from "../../../core/keys/secret.ts";
import type { ApiKey, KeyChange, KeyManagementStore, KeyStore, NewKey, RotateOutcome } from "../../../core/store.ts";
import type { Database } from "../../database.ts";
import type { Dialect } from "../../migration-files.ts";
import { apiKeys } from "../../schema/sqlite.ts";
import { int, type Work } from "../../sql.ts";
import { build, query, records } from "../../typed.ts";
import { keyLookup } from "./lookup.ts";
import { findManagementKey } from "./management.ts";
import { lockScope } from "../accounts/rate-limits.ts";
import { listColumn, toKey } from "../rows.ts";
import { queueWebhookEvent } from "../webhooks.ts";

function* createKey(input: NewKey): Work<ApiKey> {
  const [created] = yield* records(apiKeys, build.insert(apiKeys).values({
    id: Bun.randomUUIDv7(), accountId: input.accountId, name: input.name, prefix: input.prefix, hash: input.hash,
    origin: input.origin, createdAt: input.now, expiresAt: input.expiresAt, creditLimitNanos: input.creditLimit,
    usdPerHourNanos: input.usdPerHour, requestsPerHour: input.requestsPerHour, kind: input.kind,
    allowedModels: listColumn(input.allowedModels), allowedIps: listColumn(input.allowedIps), ownerId: input.ownerId ?? null,
  }).returning());
  if (!created) throw new Error("key insert returned no row");
  return toKey(created);
}

export const keyStore = (db: Database): KeyStore => ({
  createKey: (input) => db.transaction(createKey(input)),
  findKeyByHash: keyLookup(db),
});

function* listKeys(accountId: string): Work<ApiKey[]> {
  const query = build.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return (yield* records(apiKeys, query)).map(toKey);
}

/** The account's key, or null. */
function* ownKeyRow(id: string, accountId?: string) {
  const where = accountId === undefined ? eq(apiKeys.id, id) : and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId));
  const [found] = yield* records(apiKeys, build.select().from(apiKeys).where(where));
  return found ?? null;
}

function* ownKey(id: string, accountId?: string): Work<ApiKey | null> {
  const found = yield* ownKeyRow(id, accountId);
  return found ? toKey(found) : null;
}

function* createKeyWithinLimit(
  dialect: Dialect,
  input: NewKey,
  limit: { count: number; windowMs: number },
): Work<{ created: ApiKey } | { retryAfterSeconds: number }> {
  // The count and the insert must not interleave with another request's, on any instance.
  yield* lockScope(dialect, `keys:${input.origin}:${input.accountId}`);
  const [window] = yield* query(
    build.select({ n: count().as("n"), oldest: min(apiKeys.createdAt).as("oldest") }).from(apiKeys).where(and(
      eq(apiKeys.accountId, input.accountId), eq(apiKeys.origin, input.origin), gt(apiKeys.createdAt, input.now - limit.windowMs),
    )),
  );
  if (int(window?.n) >= limit.count) {
    const reopensAt = int(window?.oldest) + limit.windowMs;
    return { retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - input.now) / 1000)) };
  }
  return { created: yield* createKey(input) };
}

function* updateKey(accountId: string, id: string, change: KeyChange): Work<ApiKey | null> {
  const set = {
    name: change.name, expiresAt: change.expiresAt, creditLimitNanos: change.creditLimit,
    usdPerHourNanos: change.usdPerHour, requestsPerHour: change.requestsPerHour,
    allowedModels: listColumn(change.allowedModels), allowedIps: listColumn(change.allowedIps),
  };
  // drizzle leaves out the fields that are undefined, and refuses an UPDATE with none.
  if (Object.values(set).every((value) => value === undefined)) return yield* ownKey(id, accountId);
  const [updated] = yield* records(apiKeys, build.update(apiKeys).set(set)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId))).returning());
  return updated ? toKey(updated) : null;
}

function* revokeKey(accountId: string, id: string, now: number): Work<ApiKey | null> {
  const [revoked] = yield* records(apiKeys, build.update(apiKeys).set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt))).returning());
  if (!revoked) return null;
  yield* tellRevoked(toKey(revoked), "revoked", now);
  return toKey(revoked);
}

/** `key.revoked` for the account's webhook: revoked by hand, or replaced by its rotation. */
const tellRevoked = (key: ApiKey, reason: "revoked" | "rotated", now: number) =>
  queueWebhookEvent(key.accountId, "key.revoked", { keyId: key.id, name: key.name, prefix: key.prefix, reason }, now);

function* rotateKey(accountId: string, id: string, replacement: { prefix: string; hash: string }, now: number): Work<RotateOutcome> {
  const row = yield* ownKeyRow(id, accountId);
  if (!row) return { refused: "not_found" };
  const key = toKey(row);
  const status = keyStatus(key, now);
  if (status !== "active") return { refused: status === "expired" ? "expired" : "not_found" };
  // Re-checked by the UPDATE itself: of two concurrent rotations only one revokes, and only it replaces.
  const revoked = yield* query(build.update(apiKeys).set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id }));
  if (revoked.length === 0) return { refused: "not_found" };
  yield* tellRevoked(key, "rotated", now);
  const rotated = yield* createKey({
    // An organization's management key the operator made (no maker) stays the operator's: its
    // origin is what lets it act as an admin (core/keys/management.ts).
    accountId, name: key.name, ...replacement, origin: row.origin === "cli" && key.ownerId === null && key.kind === "management" ? "cli" : "rotation", expiresAt: key.expiresAt,
    creditLimit: key.creditLimit, usdPerHour: key.usdPerHour, requestsPerHour: key.requestsPerHour,
    kind: key.kind, allowedModels: key.allowedModels, allowedIps: key.allowedIps, ownerId: key.ownerId, now,
  });
  return { rotated };
}

// Key IDs are UUIDs. Any other string, from a URL path or the CLI, names no key and is not
// sent to the database at all: Postgres refuses a parameter holding a NUL with an error.
const KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const keyManagementStore = (db: Database): KeyManagementStore => ({
  listKeys: (accountId) => db.run(listKeys(accountId)),
  findKey: async (id) => (KEY_ID.test(id) ? db.run(ownKey(id)) : null),
  createKeyWithinLimit: (input, limit) => db.transaction(createKeyWithinLimit(db.dialect, input, limit)),
  updateKey: async (accountId, id, change) => (KEY_ID.test(id) ? db.transaction(updateKey(accountId, id, change)) : null),
  findManagementKey: (hash) => db.run(findManagementKey(hash)),
  markKeyUsed: async (id, now) => {
    await db.run(query(build.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, id))));
  },
  revokeKey: async (accountId, id, now) => (KEY_ID.test(id) ? db.transaction(revokeKey(accountId, id, now)) : null),
  rotateKey: async (accountId, id, replacement, now) =>
    KEY_ID.test(id) ? db.transaction(rotateKey(accountId, id, replacement, now)) : { refused: "not_found" },
});
