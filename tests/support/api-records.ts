// One TypeBox schema per record the HTTP API returns and the CLI prints with --json, written
// from the API's serializers: no field more or less (additionalProperties: false), and each
// with its type (money as a decimal string at the API's places, times as ISO 8601 in UTC). The
// CLI prints the same records with every amount exact (`exact` below).
// Records only the CLI prints (doctor, migrate, version, backup, credits show) are here too.
import { expect } from "bun:test";
import { type TSchema, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { formatUsd, parseUsd } from "../../src/core/money.ts";

const strict = <P extends Record<string, TSchema>>(properties: P) => T.Object(properties, { additionalProperties: false });
const nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

/** A decimal USD string with exactly `places` decimals (formatUsd's text). */
const usd = (places: number) => T.String({ pattern: `^-?\\d+\\.\\d{${places}}$` });
const ISO = T.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$" });
const INT = T.Integer();
const ROLE = T.Union([T.Literal("owner"), T.Literal("admin"), T.Literal("member")]);

/** `GET /admin/accounts`' accounts (adminAccountView); every `users` command. */
export const ACCOUNT = strict({
  email: T.String(), state: T.String(), admin: T.Boolean(), balanceUsd: usd(6), overdrawn: T.Boolean(), reservedUsd: usd(6),
  inflight: INT, createdAt: ISO, bannedAt: nullable(ISO),
});

/** `GET /keys` (keyListView); keys list, revoke, update. */
export const KEY = strict({
  id: T.String(), name: T.String(), prefix: T.String(), status: T.String(), createdAt: ISO, lastUsedAt: nullable(ISO), expiresAt: nullable(ISO),
  creditLimitUsd: nullable(usd(6)), rateLimitUsdPerHour: nullable(usd(2)), rateLimitRequestsPerHour: nullable(INT),
  total_requests: INT, total_spend_usd: usd(6),
  allowedModels: T.Optional(T.Array(T.String())), allowedIps: T.Optional(T.Array(T.String())), management: T.Optional(T.Literal(true)),
  ownerId: T.Optional(T.String()),
});

const KEY_CREATED_FIELDS = {
  key: T.String(), name: T.String(), expires_at: nullable(ISO), credit_limit_usd: nullable(T.Number()),
  rate_limit_usd_per_hour: nullable(T.Number()), rate_limit_requests_per_hour: nullable(INT),
  allowed_models: T.Optional(T.Array(T.String())), allowed_ips: T.Optional(T.Array(T.String())), management: T.Optional(T.Literal(true)),
  message: T.String(),
};
/** `POST /keys/generate`'s answer (keyCreatedView). */
export const KEY_CREATED = strict(KEY_CREATED_FIELDS);
/** `keys create`: the API's answer and the id the CLI names keys by. */
export const CLI_KEY_CREATED = strict({ id: T.String(), ...KEY_CREATED_FIELDS });
/** `POST /keys/{id}/rotate`'s answer; `keys rotate` adds the replacement's id. */
export const KEY_ROTATED = strict({ key: T.String(), message: T.String() });
export const CLI_KEY_ROTATED = strict({ id: T.String(), ...KEY_ROTATED.properties });

/** `GET /admin/models` (catalogModelView); models list, enable, disable, set-price. */
export const MODEL = strict({
  id: T.String(), displayName: T.String(), provider: T.String(), category: T.String(), contextWindow: INT, maxOutputTokens: INT,
  inputPerMillionUsd: usd(4), outputPerMillionUsd: usd(4), cachedInputPerMillionUsd: usd(4),
  useCaseHint: T.String(), speedBadge: T.String(), enabled: T.Boolean(),
});

const GRANT_FIELDS = { kind: T.Union([T.Literal("grant"), T.Literal("adjustment")]), amountUsd: usd(9), note: T.String(), balanceUsd: usd(6) };
/** `POST /admin/accounts/{email}/credits`' answer; credits grant. */
export const GRANT = strict({ email: T.String(), ...GRANT_FIELDS });
/** orgs grant: the same, the organization named by id and name. */
export const ORG_GRANT = strict({ id: T.String(), name: T.String(), ...GRANT_FIELDS });

/** `GET /account/audit` (auditPage); users audit. */
export const AUDIT_PAGE = strict({
  page: INT, hasMore: T.Boolean(),
  events: T.Array(strict({ id: T.String(), at: ISO, type: T.String(), ip: nullable(T.String()), detail: nullable(T.String()) })),
});

/** `GET /admin/accounts/{email}`' purchases (adminPurchaseView); purchases list. */
export const PURCHASE = strict({
  id: T.String(), createdAt: ISO, packId: T.String(), packName: T.String(), priceUsd: nullable(T.String()), creditsUsd: usd(2),
  status: T.String(), paidAt: nullable(ISO), receiptUrl: nullable(T.String()), invoiceUrl: nullable(T.String()), source: T.String(), paidUsd: nullable(usd(2)), refundedUsd: usd(2),
  creditsTakenBackUsd: usd(9), disputedUsd: nullable(usd(2)), disputeStatus: nullable(T.String()),
});

/** `POST /orgs` and `PATCH /orgs/{id}` (orgView); orgs create, rename. */
export const ORG = strict({ id: T.String(), name: T.String(), role: ROLE, createdAt: ISO });
/** `GET /admin/orgs` (adminOrgView); orgs list. */
export const ADMIN_ORG = strict({ id: T.String(), name: T.String(), members: INT, balanceUsd: usd(6), createdAt: ISO });
/** `GET /orgs` (membershipView); orgs list --email. */
export const MEMBERSHIP = strict({ ...ORG.properties, spendCapUsdPerDay: nullable(usd(6)) });
/** `GET /orgs/{id}/members` (memberView); orgs members, add, set-role. */
export const MEMBER = strict({
  userId: T.String(), email: T.String(), role: ROLE, spendCapUsdPerDay: nullable(usd(6)), spentTodayUsd: usd(6), joinedAt: ISO,
});
/** `GET /orgs/{id}/invitations` (invitationView); orgs invite, invitations. */
export const INVITATION = strict({ id: T.String(), email: T.String(), role: ROLE, expiresAt: ISO, createdAt: ISO });
/** `DELETE /orgs/{id}` and `DELETE /orgs/{id}/invitations/{id}`; orgs delete, revoke-invitation. */
export const SUCCESS = strict({ success: T.Literal(true) });
/** `DELETE /orgs/{id}/members/{userId}`; orgs remove. */
export const MEMBER_REMOVED = strict({ success: T.Literal(true), revokedKeys: T.Array(KEY) });

/** usage export --json: GET /account/usage's names for the fields an export row has. */
export const USAGE_ROW = strict({
  id: T.String(), createdAt: ISO, model: T.String(), requestedModel: T.String(), promptTokens: INT, completionTokens: INT,
  cachedTokens: INT, costUsd: usd(9), savedUsd: usd(9), latencyMs: INT, status: T.String(),
});

// Records only the CLI prints: snake_case names (one-word ones here), money exact.
export const CREDITS_SHOWN = strict({ email: T.String(), balanceUsd: usd(9), reservedUsd: usd(9), availableUsd: usd(9), ledgerSumUsd: usd(9) });
export const VERSION = strict({ version: T.String(), commit: T.String() });
export const MIGRATED = strict({ migrated: T.Literal(true), applied: T.Array(T.String()) });
export const DOCTOR = strict({
  ok: T.Boolean(),
  checks: T.Array(strict({ name: T.String(), status: T.Union(["ok", "warn", "fail", "skip"].map((s) => T.Literal(s))), message: T.String() })),
});
export const BACKED_UP = strict({ out: T.String(), bytes: INT, seconds: T.Number() });
export const RESTORED = strict({ restored: T.String(), to: T.String() });
export const USAGE_WRITTEN = strict({ email: T.String(), out: T.String() });

const MONEY_PATTERN = /^\^-\?\\d\+\\\.\\d\{\d\}\$$/;

/** `schema` as the CLI prints its record: the same fields, every amount exact to 9 places. */
export function exact<S extends TSchema>(schema: S): S {
  if (typeof schema.pattern === "string" && MONEY_PATTERN.test(schema.pattern)) return { ...schema, pattern: usd(9).pattern };
  // Spreads keep TypeBox's symbol-keyed markers (its kind, Optional).
  const copy: Record<string, unknown> = { ...schema };
  if (schema.properties) copy.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, TSchema>).map(([k, v]) => [k, exact(v)]));
  if (schema.anyOf) copy.anyOf = (schema.anyOf as TSchema[]).map(exact);
  if (schema.items) copy.items = exact(schema.items as TSchema);
  return copy as S;
}

const DECIMAL = /^-?\d+\.(\d+)$/;

/**
 * Expects the CLI's `cli` record to be the API's `api` record, field for field, its exact
 * amounts rounded as the API rounds them (half up, to the API's places).
 */
export function expectSameRecord(cli: unknown, api: unknown): void {
  expect(roundedAs(cli, api)).toEqual(api);
}

function roundedAs(cli: unknown, api: unknown): unknown {
  if (typeof cli === "string" && typeof api === "string") {
    const places = DECIMAL.exec(api)?.[1]?.length;
    const amount = DECIMAL.test(cli) ? parseUsd(cli, { signed: true }) : null;
    return places !== undefined && amount !== null && places < 9 ? formatUsd(amount, places as 2 | 4 | 6) : cli;
  }
  if (Array.isArray(cli) && Array.isArray(api)) return cli.map((c, i) => roundedAs(c, api[i]));
  if (cli && api && typeof cli === "object" && typeof api === "object") {
    return Object.fromEntries(Object.entries(cli).map(([k, v]) => [k, roundedAs(v, (api as Record<string, unknown>)[k])]));
  }
  return cli;
}

/** Fails naming every field of `value` that `schema` does not allow, and why. */
export function expectRecord(schema: TSchema, value: unknown, what: string): void {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.path || "/"}: ${e.message}`);
  expect({ what, errors }).toEqual({ what, errors: [] });
}

/** `expectRecord` for each element of a non-empty array. */
export function expectRecords(schema: TSchema, values: unknown, what: string): void {
  expect(Array.isArray(values) && values.length > 0).toBe(true);
  for (const [i, value] of (values as unknown[]).entries()) expectRecord(schema, value, `${what}[${i}]`);
}
