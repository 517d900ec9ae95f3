import type { AdminAccountStore } from "./admin-actions.ts";
import type { AdminStatsStore } from "./admin-stats.ts";
import type { AlertStore } from "./alerts.ts";
import type { AuditStore } from "./audit.ts";
import type { Model } from "./catalog.ts";
import type { ModelSpendStore } from "./model-spend.ts";
import type { CheckoutEventStore } from "./checkout-events.ts";
import type { CheckoutStore, ReceiptStore } from "./checkout.ts";
import type { DashboardStore } from "./dashboard.ts";
import type { AppError } from "./errors.ts";
import type { Nanos } from "./money.ts";
import type { ReservationPolicy } from "./reservation.ts";

// The ports through which core and the adapters reach storage. src/db implements them for
// SQLite and Postgres; every method is one atomic step.

export interface ModelChange {
  enabled?: boolean;
  inputPerMTok?: Nanos;
  outputPerMTok?: Nanos;
}

export interface ModelStore {
  /** Catalog models in catalog order; only enabled ones unless `includeDisabled`. */
  listModels(options?: { includeDisabled?: boolean }): Promise<Model[]>;
  /** Applies `change` to model `id`; null when there is no such model. */
  updateModel(id: string, change: ModelChange): Promise<Model | null>;
}

export interface HealthStore {
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
}

export interface Account {
  id: string;
  email: string;
  createdAt: number;
  /** Sum of the account's ledger entries. */
  balance: Nanos;
  /** Sum of open reservations; available = balance − reserved. */
  reserved: Nanos;
  /** Chat requests holding a reservation now. */
  inflight: number;
  /** Low-balance alert threshold; null when alerts are off. */
  alertThreshold: Nanos | null;
  /** Hourly spend safety limit; null when unlimited (the API's -1). */
  spendLimit: Nanos | null;
  bannedAt: number | null;
  deletedAt: number | null;
  /** An operator: may use the console (`/dashboard/admin`, `/admin/...`). */
  isAdmin: boolean;
}

export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  creditLimit: Nanos | null;
  usdPerHour: Nanos | null;
  requestsPerHour: number | null;
  totalRequests: number;
  totalSpend: Nanos;
}

export type LedgerKind = "grant" | "purchase" | "charge" | "adjustment";

export interface NewAccount {
  email: string;
  passwordHash: string | null;
  /** Credits granted in the same transaction (sign-up bonus, or the CLI's --credits). */
  initialCredits?: { amount: Nanos; note: string };
  /** Made an operator at creation (`gateway users create --admin`). */
  isAdmin?: boolean;
  now: number;
}

export interface Credit {
  accountId: string;
  amount: Nanos;
  kind: LedgerKind;
  note?: string;
  /** A credit with a key already in the ledger is not applied again (replayed webhooks). */
  idempotencyKey?: string;
  now: number;
}

export interface AccountStore {
  /** Creates an account; null when the e-mail is taken. */
  createAccount(input: NewAccount): Promise<Account | null>;
  getAccount(id: string): Promise<Account | null>;
  findAccountByEmail(email: string): Promise<Account | null>;
  /** Appends a ledger entry and moves the balance with it; null when the idempotency key was used before. */
  addCredit(credit: Credit): Promise<{ balance: Nanos } | null>;
  /** Sum of the account's ledger entries, computed from the ledger itself (for audits and tests). */
  ledgerSum(accountId: string): Promise<Nanos>;
}

export interface NewKey {
  accountId: string;
  name: string;
  prefix: string;
  hash: string;
  /** Where the key was made: dashboard keys count toward the hourly generation limit. */
  origin: "dashboard" | "cli" | "rotation";
  expiresAt: number | null;
  creditLimit: Nanos | null;
  usdPerHour: Nanos | null;
  requestsPerHour: number | null;
  now: number;
}

/** The account behind an API key, as far as authenticating a request needs it. */
export type KeyHolder = Pick<Account, "id" | "bannedAt" | "deletedAt">;

export interface KeyStore {
  createKey(input: NewKey): Promise<ApiKey>;
  /** The key with this hash and what the chat path needs of its account, whatever their state; null when unknown. */
  findKeyByHash(hash: string): Promise<{ key: ApiKey; account: KeyHolder } | null>;
}

export interface RateLimitHit {
  /** What is limited, e.g. `estimator:ip:203.0.113.7`. */
  scope: string;
  limit: number;
  windowMs: number;
  now: number;
}

export type RateLimitDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

export interface RateLimitStore {
  /**
   * Counts an event against a rolling window, atomically across instances: allowed (and
   * recorded) while fewer than `limit` events fall in the last `windowMs`; otherwise refused,
   * with the seconds until the oldest event leaves the window.
   */
  hitRateLimit(input: RateLimitHit): Promise<RateLimitDecision>;
  /** Events recorded for `scope` after `since`. */
  countRecentEvents(scope: string, since: number): Promise<number>;
}

// Sign-in, users, settings, key management and usage export (the account endpoints and the CLI).

export interface FreeCreditOffer {
  amount: Nanos;
  /** The normalized e-mail, which may claim the credits once. */
  identity: string;
  /** Sign-ups that received credits are counted per IP under this scope, per UTC day. */
  ipScope: string;
  perIpPerDay: number;
  /** Start of the current UTC day, epoch ms. */
  dayStart: number;
}

export interface SignUp {
  email: string;
  passwordHash: string;
  /** Null when free credits are off. */
  freeCredits: FreeCreditOffer | null;
  now: number;
}

/** Only present fields change; null clears a setting or flag. */
export interface AccountChange {
  alertThreshold?: Nanos | null;
  spendLimit?: Nanos | null;
  bannedAt?: number | null;
  deletedAt?: number;
  isAdmin?: boolean;
}

export interface UserStore {
  /**
   * Creates an account and, when offered and still available (e-mail not claimed before, the
   * IP under its daily cap), grants the free credits, all in one transaction; null when the
   * e-mail is taken.
   */
  signUp(input: SignUp): Promise<{ account: Account; freeCreditsGranted: boolean } | null>;
  /** The account with this e-mail and its password hash (null for accounts made without one). */
  findCredentials(email: string): Promise<{ account: Account; passwordHash: string | null } | null>;
  /** Every account, oldest first. */
  listAccounts(): Promise<Account[]>;
  updateAccount(id: string, change: AccountChange): Promise<Account | null>;
}

export interface NewSession {
  tokenHash: string;
  accountId: string;
  now: number;
  expiresAt: number;
}

export interface SessionStore {
  createSession(input: NewSession): Promise<void>;
  /** The unexpired session with this token hash; `account` is null when its row is gone. */
  findSession(tokenHash: string, now: number): Promise<{ accountId: string; account: Account | null } | null>;
  deleteSession(tokenHash: string): Promise<void>;
}

/** Only present fields change; null clears an optional value. */
export interface KeyChange {
  name?: string;
  expiresAt?: number | null;
  creditLimit?: Nanos | null;
  usdPerHour?: Nanos | null;
  requestsPerHour?: number | null;
}

export type RotateOutcome = { rotated: ApiKey } | { refused: "not_found" | "expired" };

export interface KeyManagementStore {
  /** The account's keys, newest first, in every state. */
  listKeys(accountId: string): Promise<ApiKey[]>;
  findKey(id: string): Promise<ApiKey | null>;
  /**
   * Creates the key unless `limit.count` keys of the same origin were made for the account in
   * the last `limit.windowMs`; the count and the insert are atomic across instances.
   */
  createKeyWithinLimit(
    input: NewKey,
    limit: { count: number; windowMs: number },
  ): Promise<{ created: ApiKey } | { retryAfterSeconds: number }>;
  /** Null when the account has no key with this id. */
  updateKey(accountId: string, id: string, change: KeyChange): Promise<ApiKey | null>;
  /** Null when the account has no unrevoked key with this id. */
  revokeKey(accountId: string, id: string, now: number): Promise<ApiKey | null>;
  /** Revokes the key and creates its replacement (same name, expiry and limits) in one transaction. */
  rotateKey(accountId: string, id: string, replacement: { prefix: string; hash: string }, now: number): Promise<RotateOutcome>;
}

export interface UsageExportRow {
  id: string;
  createdAt: number;
  model: string;
  requestedModel: string;
  promptTokens: number;
  completionTokens: number;
  cost: Nanos;
  latencyMs: number;
  status: string;
}

/** Where a page of usage logs ends; the next page starts after it. */
export interface UsageCursor {
  createdAt: number;
  id: string;
}

export interface UsageExportStore {
  /** Up to `limit` of the account's usage logs, newest first, after `after` (from the newest when null). */
  usageLogPage(accountId: string, after: UsageCursor | null, limit: number): Promise<UsageExportRow[]>;
}

export interface NewReservation {
  account: Pick<Account, "id">;
  key: Pick<ApiKey, "id" | "creditLimit" | "usdPerHour" | "requestsPerHour">;
  /** Resolved model ID, and the ID the client asked for. */
  model: string;
  requestedModel: string;
  /** The most this request may cost: estimated input plus the output ceiling, at sell prices. */
  amount: Nanos;
  policy: ReservationPolicy;
  leaseMs: number;
  now: number;
}

export type ReservationOutcome = { ok: true; reservationId: string } | { ok: false; error: AppError };

export interface Settlement {
  reservationId: string;
  /** Who and what the reservation was for, to charge correctly even if its lease was swept meanwhile. */
  accountId: string;
  keyId: string;
  model: string;
  requestedModel: string;
  promptTokens: number;
  completionTokens: number;
  cost: Nanos;
  latencyMs: number;
  now: number;
}

export interface Release {
  reservationId: string;
  /** Why the request ended without a charge; recorded in the usage log. */
  reason: string;
  latencyMs: number;
  now: number;
}

export interface BillingStore {
  /**
   * Checks every limit and the balance under the account's lock and, when they pass, holds
   * `amount` in one transaction: two requests can never both pass on the same credit.
   */
  reserve(input: NewReservation): Promise<ReservationOutcome>;
  /** Charges the actual cost, releases the rest, and writes the usage log, in one transaction. */
  settle(input: Settlement): Promise<{ balance: Nanos }>;
  /** Releases the whole reservation and records the failure; a no-op if already released. */
  release(input: Release): Promise<void>;
  /** Pushes live requests' leases forward so that the sweeper leaves them alone. */
  renewLeases(reservationIds: string[], leaseExpiresAt: number): Promise<void>;
  /** Releases reservations whose lease has run out (their process died); returns how many. */
  sweepExpiredReservations(now: number): Promise<number>;
  /** The account's money from every side, for checking that they agree. */
  auditAccount(accountId: string): Promise<AccountAudit | null>;
}

export interface AccountAudit {
  balance: Nanos;
  /** Sum of the ledger's entries; equals `balance`. */
  ledgerSum: Nanos;
  /** Sum of the ledger's credits (grants, purchases, positive adjustments). */
  credited: Nanos;
  /** Sum of the usage logs' costs; equals the charges in the ledger. */
  usageCost: Nanos;
  reserved: Nanos;
  openReservations: number;
}

export type Store = ModelStore & HealthStore & AccountStore & KeyStore & RateLimitStore & DashboardStore
  & UserStore & SessionStore & KeyManagementStore & UsageExportStore & BillingStore
  & CheckoutStore & CheckoutEventStore & AlertStore & AuditStore & AdminAccountStore & AdminStatsStore & ModelSpendStore
  & ReceiptStore;
