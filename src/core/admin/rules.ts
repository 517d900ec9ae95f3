import { accountState } from "../accounts/state.ts";
import type { Model } from "../catalog.ts";
import { AppError, MESSAGES } from "../errors.ts";
import { apiUsd, formatUsd, NANOS_PER_USD, readUsd, type Nanos, type UsdFormat } from "../money.ts";
import type { Account, ModelChange } from "../store.ts";

// The operator console's rules: who may use it, and what its writes accept. The reads and
// writes themselves are in actions.ts and stats.ts.

/** Accounts per page of the console's search. */
export const ADMIN_PAGE_SIZE = 50;
/** Pages of search results; bounds the query's offset. */
export const ADMIN_PAGES = 200;
const QUERY_MAX_LENGTH = 200;
const NOTE_MAX_LENGTH = 500;
// A grant or adjustment this large is a typo, not a business decision: the console and the CLI
// (`credits grant`, `users create --credits`) both refuse it.
export const MAX_GRANT_USD = 1_000_000n;
// Sell prices above this per million tokens are a typo; stays far inside a 64-bit nano-USD.
const MAX_PRICE_USD = 10_000n;

/**
 * The account behind a console request: signed in (else 401, as every session endpoint) and an
 * operator (else 403). A banned, deleted or demoted operator loses the console at once, since
 * the flag is read with the session on every request.
 */
export function requireOperator(session: { account: Account | null }): Account {
  const account = session.account;
  if (account === null || !account.isAdmin || accountState(account) !== "active") {
    throw new AppError("permission_error", MESSAGES.forbidden);
  }
  return account;
}

const invalid = (message: string) => new AppError("invalid_request_error", message);

/** `?page=` of the console's lists: absent means 1, else a whole number from 1 to `max`. */
export function parsePage(raw: string | undefined, max: number): number {
  if (raw === undefined) return 1;
  const page = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(page >= 1 && page <= max)) throw invalid(`page must be a whole number from 1 to ${max}`);
  return page;
}

/** `?q=` of the account search: part of an e-mail, matched case-insensitively; empty matches every account. */
export function parseAccountQuery(raw: string | undefined): string {
  const query = (raw ?? "").trim().toLowerCase();
  if (query.length > QUERY_MAX_LENGTH) throw invalid(`q must be at most ${QUERY_MAX_LENGTH} characters`);
  if (/\p{Cc}/u.test(query)) throw invalid("q must not contain control characters");
  return query;
}

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("The body must be a JSON object");
  return body as Record<string, unknown>;
};

/**
 * An exact USD amount from a decimal string (`readUsd`'s: "25", "2.50", never "1e3" or "0x10")
 * or a JSON number, with at most `places` decimals. Negative only when `unsigned` is not given;
 * when it is, it says what a negative amount is told.
 */
function usdField(field: string, value: unknown, places: number, unsigned?: string): Nanos {
  const read = typeof value === "string" || typeof value === "number" ? readUsd(value, { signed: unsigned === undefined }) : null;
  if (read?.ok === false && read.refusal === "negative") throw invalid(`${field} ${unsigned}`);
  if (read?.ok === false && read.refusal === "precision") throw invalid(`${field} must have at most ${places} decimal places`);
  if (!read?.ok) throw invalid(`${field} must be a USD amount, such as "25" or "2.50"`);
  if (read.amount % (NANOS_PER_USD / 10n ** BigInt(places)) !== 0n) throw invalid(`${field} must have at most ${places} decimal places`);
  return read.amount;
}

export interface Grant {
  amount: Nanos;
  kind: "grant" | "adjustment";
  note: string;
}

/**
 * `POST /admin/accounts/{email}/credits {usd, note}`: a positive amount is a grant, a negative one
 * an adjustment (credits taken back), as in `gateway credits grant`. Exact to the nano-USD.
 */
export function parseGrant(body: unknown): Grant {
  const fields = objectBody(body);
  const amount = usdField("usd", fields.usd, 9);
  if (amount === 0n) throw invalid("usd must not be zero");
  const magnitude = amount < 0n ? -amount : amount;
  if (magnitude > MAX_GRANT_USD * NANOS_PER_USD) throw invalid(`usd must be at most ${MAX_GRANT_USD} either way`);
  const note = fields.note === undefined || fields.note === null ? "" : fields.note;
  if (typeof note !== "string") throw invalid("note must be a string");
  if (note.trim().length > NOTE_MAX_LENGTH) throw invalid(`note must be at most ${NOTE_MAX_LENGTH} characters`);
  if (/\p{Cc}/u.test(note)) throw invalid("note must not contain control characters");
  return { amount, kind: amount > 0n ? "grant" : "adjustment", note: note.trim() || "granted by an operator" };
}

const MODEL_FIELDS = ["enabled", "inputPerMillionUsd", "outputPerMillionUsd", "cachedInputPerMillionUsd"] as const;

/**
 * `PATCH /admin/models/{id}`: any of `enabled`, `inputPerMillionUsd`, `outputPerMillionUsd`,
 * `cachedInputPerMillionUsd` (null: cached tokens at the input price). Prices keep the catalog's
 * 4 decimal places, so `GET /models` shows exactly what is charged.
 */
export function parseModelChange(body: unknown): ModelChange {
  const fields = objectBody(body);
  const change: ModelChange = {};
  if (fields.enabled !== undefined) {
    if (typeof fields.enabled !== "boolean") throw invalid("enabled must be true or false");
    change.enabled = fields.enabled;
  }
  if (fields.cachedInputPerMillionUsd === null) change.cachedInputPerMTok = null;
  const prices = [["inputPerMillionUsd", "inputPerMTok"], ["outputPerMillionUsd", "outputPerMTok"], ["cachedInputPerMillionUsd", "cachedInputPerMTok"]] as const;
  for (const [field, key] of prices) {
    if (fields[field] === undefined || (key === "cachedInputPerMTok" && fields[field] === null)) continue;
    const price = usdField(field, fields[field], 4, `must be from 0 to ${MAX_PRICE_USD}`);
    if (price > MAX_PRICE_USD * NANOS_PER_USD) throw invalid(`${field} must be from 0 to ${MAX_PRICE_USD}`);
    change[key] = price;
  }
  if (Object.keys(change).length === 0) throw invalid(`Nothing to change: send any of ${MODEL_FIELDS.join(", ")}`);
  return change;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * A grant as `POST /admin/accounts/{email}/credits` answers it (and the CLI's grants print it):
 * the amount exact, as the ledger entry holds it, the balance at the API's places.
 */
export const grantView = (grant: Grant, balance: Nanos, usd: UsdFormat = apiUsd) => ({
  kind: grant.kind,
  amountUsd: formatUsd(grant.amount, 9),
  note: grant.note,
  balanceUsd: usd(balance, 6),
});

/** An account as the console lists it, its amounts written by `usd`. */
export const adminAccountViewIn = (usd: UsdFormat) => (account: Account) => ({
  email: account.email,
  state: accountState(account),
  admin: account.isAdmin,
  balanceUsd: usd(account.balance, 6),
  // Below zero after a refund or a dispute took back credits already spent: every key is
  // refused with 402 until the account is topped up or granted credits.
  overdrawn: account.balance < 0n,
  reservedUsd: usd(account.reserved, 6),
  inflight: account.inflight,
  createdAt: iso(account.createdAt) as string,
  bannedAt: iso(account.bannedAt),
});
export const adminAccountView = adminAccountViewIn(apiUsd);

/**
 * A catalog model as the console shows and edits it: every model, enabled or not, with its
 * prices to the nano-USD; `cachedInputPerMillionUsd` is what a cached prompt token is charged
 * (the input price where the model has no cached-input price).
 */
export const catalogModelViewIn = (usd: UsdFormat) => (model: Model) => {
  return {
    id: model.id,
    displayName: model.displayName,
    provider: model.provider,
    category: model.category,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    inputPerMillionUsd: usd(model.inputPerMTok, 4),
    outputPerMillionUsd: usd(model.outputPerMTok, 4),
    cachedInputPerMillionUsd: usd(model.cachedInputPerMTok ?? model.inputPerMTok, 4),
    useCaseHint: model.useCaseHint,
    speedBadge: model.speedBadge,
    enabled: model.enabled,
  };
};
export const catalogModelView = catalogModelViewIn(apiUsd);
