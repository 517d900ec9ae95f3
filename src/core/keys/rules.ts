import { usdNumber } from "../accounts/state.ts";
import type { AuditStore } from "../accounts/audit.ts";
import { AppError, MESSAGES } from "../errors.ts";
import { parseAllowedIps, parseAllowedModels } from "./allowlist.ts";
import { generateKeySecret, hashKey, keyPrefix, keyStatus, MANAGEMENT_KEY_PREFIX } from "./secret.ts";
import { apiUsd, formatUsd, NANOS_PER_USD, parseUsd, type Nanos, type UsdFormat } from "../money.ts";
import type { KeyKind } from "../entities.ts";
import type { ApiKey, KeyChange, KeyManagementStore, KeyStore, ModelStore, NewKey } from "../store.ts";

const DEFAULT_KEY_NAME = "Default Key";
const NAME_MAX_LENGTH = 100;
// Upper bounds keep every limit far inside a 64-bit count of nano-USD.
const MAX_LIMIT_USD = 1_000_000;
const MAX_REQUESTS_PER_HOUR = 1_000_000_000;

/** The spec's "5 keys per hour", over keys made by `POST /keys/generate` only. */
const KEY_GENERATION_LIMIT = { count: 5, windowMs: 60 * 60 * 1000 };

const KEY_SHOWN_ONCE = "Store this key now: it is shown only once and cannot be retrieved later.";
export const KEY_ROTATED = "The old key no longer works. Store the new key now: it is shown only once.";

/** The request fields of a key, by their wire names. */
const KEY_FIELDS = [
  "name", "expiresAt", "creditLimitUsd", "rateLimitUsdPerHour", "rateLimitRequestsPerHour", "allowedModels", "allowedIps",
] as const;
export type KeyField = (typeof KEY_FIELDS)[number];

export type KeyFields = { [K in keyof KeyChange]-?: Exclude<KeyChange[K], undefined> };

/** A parsed value, or the field that was refused and why ("must be in the future"). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; field: KeyField | "management"; reason: string };

type Rule = (value: unknown, now: number) => { value: unknown } | { reason: string };

// Only date-times with a zone (or a bare date, read as UTC midnight) are accepted: a local
// time would mean something different on every server.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

function isoMillis(value: string): number | null {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1).map((part) => Number(part ?? 0));
  // Date.parse rolls 2027-02-30 over into March; refuse impossible dates and times instead.
  const calendar = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  if (calendar.getUTCMonth() !== (month ?? 1) - 1 || calendar.getUTCDate() !== day) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** A USD limit: positive, bounded, and no finer than the list view shows it. */
const usdLimit = (places: 2 | 6): Rule => (value) => {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return { reason: "must be a positive number" };
  if (value > MAX_LIMIT_USD) return { reason: `must be at most ${MAX_LIMIT_USD}` };
  const amount = parseUsd(value);
  if (amount === null || amount % (NANOS_PER_USD / 10n ** BigInt(places)) !== 0n) {
    return { reason: `must have at most ${places} decimal places` };
  }
  return { value: amount };
};

const RULES: Record<KeyField, Rule> = {
  name: (value) => {
    const name = typeof value === "string" ? value.trim() : "";
    if (name === "") return { reason: "must be a non-empty string" };
    if (name.length > NAME_MAX_LENGTH) return { reason: `must be at most ${NAME_MAX_LENGTH} characters` };
    // A label with line breaks or NULs is no label, and Postgres cannot store a NUL.
    if (/\p{Cc}/u.test(name)) return { reason: "must not contain control characters" };
    return { value: name };
  },
  expiresAt: (value, now) => {
    const ms = typeof value === "string" ? isoMillis(value) : null;
    if (ms === null) return { reason: "must be an ISO 8601 date-time with a time zone, such as 2030-01-31T00:00:00Z" };
    if (ms <= now) return { reason: "must be in the future" };
    return { value: ms };
  },
  creditLimitUsd: usdLimit(6),
  rateLimitUsdPerHour: usdLimit(2),
  rateLimitRequestsPerHour: (value) => {
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) return { reason: "must be a positive whole number" };
    if (value > MAX_REQUESTS_PER_HOUR) return { reason: `must be at most ${MAX_REQUESTS_PER_HOUR}` };
    return { value };
  },
  allowedModels: parseAllowedModels,
  allowedIps: parseAllowedIps,
};

const CHANGE_PROPERTY = {
  name: "name",
  expiresAt: "expiresAt",
  creditLimitUsd: "creditLimit",
  rateLimitUsdPerHour: "usdPerHour",
  rateLimitRequestsPerHour: "requestsPerHour",
  allowedModels: "allowedModels",
  allowedIps: "allowedIps",
} as const satisfies Record<KeyField, keyof KeyChange>;

/**
 * The fields of `PATCH /keys/{keyId}` (and `gateway keys update`): only present fields change,
 * null clears an optional value; unknown fields are ignored.
 */
export function parseKeyChange(body: Record<string, unknown>, now: number): Parsed<KeyChange> {
  const change: Record<string, unknown> = {};
  for (const field of KEY_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (value === null && field !== "name") {
      change[CHANGE_PROPERTY[field]] = null;
      continue;
    }
    const result = RULES[field](value, now);
    if ("reason" in result) return { ok: false, field, reason: result.reason };
    change[CHANGE_PROPERTY[field]] = result.value;
  }
  return { ok: true, value: change as KeyChange };
}

/** The fields of a new key; omitted or null fields take their defaults (no expiry, no limits). */
export function parseNewKey(body: Record<string, unknown>, now: number): Parsed<KeyFields> {
  const present = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
  const parsed = parseKeyChange(present, now);
  if (!parsed.ok) return parsed;
  const {
    name = DEFAULT_KEY_NAME, expiresAt = null, creditLimit = null, usdPerHour = null, requestsPerHour = null,
    allowedModels = null, allowedIps = null,
  } = parsed.value;
  return { ok: true, value: { name, expiresAt, creditLimit, usdPerHour, requestsPerHour, allowedModels, allowedIps } };
}

/** An allowlist naming a model the catalog does not have (enabled or not) is a mistake the caller should hear about. */
export async function knownModels(models: string[] | null | undefined, store: Pick<ModelStore, "listModels">): Promise<Parsed<null>> {
  if (!models) return { ok: true, value: null };
  const catalog = new Set((await store.listModels({ includeDisabled: true })).map((model) => model.id));
  const unknown = models.find((id) => !catalog.has(id));
  return unknown === undefined ? { ok: true, value: null } : { ok: false, field: "allowedModels", reason: `names \`${unknown}\`, which is not a catalog model` };
}

/**
 * `management: true` asks for a management key; absent, null or false for an API key. A
 * management key spends nothing, so the spending limits and allowlists do not apply to it.
 */
export function parseKeyKind(body: Record<string, unknown>, fields: KeyFields): Parsed<KeyKind> {
  const { management } = body;
  if (management === undefined || management === null || management === false) return { ok: true, value: "api" };
  if (management !== true) return { ok: false, field: "management", reason: "must be true or false" };
  const spending = (["creditLimitUsd", "rateLimitUsdPerHour", "rateLimitRequestsPerHour", "allowedModels", "allowedIps"] as const)
    .find((field) => fields[CHANGE_PROPERTY[field]] !== null);
  if (spending) return { ok: false, field: spending, reason: "does not apply to a management key" };
  return { ok: true, value: "management" };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A key as the list shows it: the spec's field names and formats, never the secret or its hash. */
export const keyListView = (key: ApiKey, now: number, usd: UsdFormat = apiUsd) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  status: keyStatus(key, now),
  createdAt: new Date(key.createdAt).toISOString(),
  lastUsedAt: iso(key.lastUsedAt),
  expiresAt: iso(key.expiresAt),
  creditLimitUsd: key.creditLimit === null ? null : usd(key.creditLimit, 6),
  rateLimitUsdPerHour: key.usdPerHour === null ? null : usd(key.usdPerHour, 2),
  rateLimitRequestsPerHour: key.requestsPerHour,
  total_requests: key.totalRequests,
  total_spend_usd: usd(key.totalSpend, 6),
  ...restrictions(key, "allowedModels", "allowedIps"),
  // In an organization, the member who owns the key; organization keys have none.
  ...(key.ownerId === null ? {} : { ownerId: key.ownerId }),
});

/**
 * What DESIGN adds to the spec's key records, present only when set: a plain API key's
 * records stay exactly the spec's. Absent allowlists allow everything.
 */
function restrictions<M extends string, I extends string>(key: ApiKey, models: M, ips: I) {
  return {
    ...(key.allowedModels === null ? {} : { [models]: key.allowedModels }),
    ...(key.allowedIps === null ? {} : { [ips]: key.allowedIps }),
    ...(key.kind === "management" ? { management: true } : {}),
  } as Partial<Record<M | I, string[]> & { management: true }>;
}

const numberOrNull = (amount: Nanos | null): number | null => (amount === null ? null : usdNumber(amount));

/** The creation answer: snake_case throughout, limits as the numbers they were given as, the secret once. */
export const keyCreatedView = (key: ApiKey, secret: string) => ({
  key: secret,
  name: key.name,
  expires_at: iso(key.expiresAt),
  credit_limit_usd: numberOrNull(key.creditLimit),
  rate_limit_usd_per_hour: numberOrNull(key.usdPerHour),
  rate_limit_requests_per_hour: key.requestsPerHour,
  ...restrictions(key, "allowed_models", "allowed_ips"),
  message: KEY_SHOWN_ONCE,
});

/** A fresh secret of the kind, and what is stored of it. */
function mintKey(kind: KeyKind): { secret: string; prefix: string; hash: string } {
  const secret = generateKeySecret(undefined, kind === "management" ? MANAGEMENT_KEY_PREFIX : undefined);
  return { secret, prefix: keyPrefix(secret), hash: hashKey(secret) };
}

/**
 * Who acted on a key, for the audit log: the caller's IP (null for the operator's CLI) and,
 * when a script acted with a management key, that key.
 */
/** Who acts on a key; `person` names the member acting in an organization, `operator` the operator's CLI and its OS user. */
export type KeyActor = { ip: string | null; managementKey?: Pick<ApiKey, "name" | "prefix">; person?: string; operator?: string };

const actedBy = (actor: KeyActor): string => {
  if (actor.managementKey) return `with management key "${actor.managementKey.name}" (${actor.managementKey.prefix}…)`;
  if (actor.person) return `by ${actor.person}`;
  if (actor.operator) return `by ${actor.operator}`;
  return actor.ip === null ? "by the operator" : "from the dashboard";
};

const keyAudit = (store: AuditStore, type: "key_created" | "key_rotated" | "key_revoked", key: ApiKey, actor: KeyActor, now: number) =>
  store.recordAudit({
    accountId: key.accountId, type, ip: actor.ip, at: now,
    detail: `${key.kind === "management" ? "management key " : ""}"${key.name}" (${key.prefix}…) ${actedBy(actor)}`,
  });

/**
 * Issues a key. Dashboard keys count toward the hourly generation limit (429 when reached);
 * keys made by the operator's CLI do not.
 */
export async function issueKey(
  store: KeyStore & KeyManagementStore & AuditStore,
  input: { accountId: string; fields: KeyFields; kind: KeyKind; origin: "dashboard" | "cli"; ownerId?: string | null; now: number } & KeyActor,
): Promise<{ key: ApiKey; secret: string }> {
  const { secret, prefix, hash } = mintKey(input.kind);
  const newKey: NewKey = {
    accountId: input.accountId, ...input.fields, kind: input.kind, prefix, hash, origin: input.origin, ownerId: input.ownerId ?? null, now: input.now,
  };
  const result = input.origin === "cli" ? { created: await store.createKey(newKey) } : await store.createKeyWithinLimit(newKey, KEY_GENERATION_LIMIT);
  if ("retryAfterSeconds" in result) {
    throw new AppError("rate_limit_error", MESSAGES.keyRateLimited, { retryAfterSeconds: result.retryAfterSeconds });
  }
  await keyAudit(store, "key_created", result.created, input, input.now);
  return { key: result.created, secret };
}

/** Revokes a key and issues its replacement; 404 for an unknown or revoked key, 400 for an expired one. */
export async function rotateKey(
  store: KeyManagementStore & AuditStore,
  accountId: string,
  keyId: string,
  now: number,
  actor: KeyActor,
): Promise<{ key: ApiKey; secret: string }> {
  const existing = await store.findKey(keyId);
  const { secret, prefix, hash } = mintKey(existing?.kind ?? "api");
  const outcome = await store.rotateKey(accountId, keyId, { prefix, hash }, now);
  if ("rotated" in outcome) {
    await keyAudit(store, "key_rotated", outcome.rotated, actor, now);
    return { key: outcome.rotated, secret };
  }
  if (outcome.refused === "expired") throw new AppError("invalid_request_error", MESSAGES.keyExpiredNoRotate);
  throw new AppError("not_found", MESSAGES.keyNotFoundOrRevoked);
}

/** Revokes the account's key; null when it has no unrevoked key with this id. */
export async function revokeKey(
  store: KeyManagementStore & AuditStore,
  accountId: string,
  keyId: string,
  now: number,
  actor: KeyActor,
): Promise<ApiKey | null> {
  const key = await store.revokeKey(accountId, keyId, now);
  if (key) await keyAudit(store, "key_revoked", key, actor, now);
  return key;
}
