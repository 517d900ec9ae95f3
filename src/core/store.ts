import type { NewAuditEvent } from "./accounts/audit.ts";
import type { ModelAlias } from "./aliases.ts";
import type { Account, ApiKey, KeyKind } from "./entities.ts";
import type { Model } from "./catalog.ts";
import type { Caller } from "./keys/auth.ts";
import type { Nanos } from "./money.ts";
import type { Role } from "./orgs/roles.ts";

// The ports through which core and the adapters reach storage. src/db implements them for
// SQLite and Postgres; every method is one atomic step.

export interface ModelChange {
  enabled?: boolean;
  inputPerMTok?: Nanos;
  outputPerMTok?: Nanos;
  /** Null: cached input is charged at the input price again. */
  cachedInputPerMTok?: Nanos | null;
}

export interface ModelStore {
  /** Catalog models in catalog order; only enabled ones unless `includeDisabled`. */
  listModels(options?: { includeDisabled?: boolean }): Promise<Model[]>;
  /** Applies `change` to model `id`; null when there is no such model. */
  updateModel(id: string, change: ModelChange): Promise<Model | null>;
  /** The operator's aliases, by name. */
  listAliases(): Promise<ModelAlias[]>;
  /** Creates the alias, or replaces its models. */
  saveAlias(alias: ModelAlias, now: number): Promise<void>;
  /** Removes the alias; false when there was none. */
  removeAlias(name: string): Promise<boolean>;
}

export interface HealthStore {
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Resolves when the database takes the chat path's writes: it fails on a database turned
   * read-only, or a role without a privilege those writes need. (A full disk shows only when
   * a write needs space: the chat path's failed writes tell that.)
   */
  probeWrites(): Promise<void>;
}

// The records most ports share, named here too for the store's users.
export type { Account, ApiKey } from "./entities.ts";

/**
 * `refund` takes back a refunded purchase's share of credits; `dispute_hold` takes a disputed
 * purchase's credits out of the balance and `dispute_release` gives them back when it is won.
 */
type LedgerKind = "grant" | "purchase" | "charge" | "adjustment" | "transfer" | "refund" | "dispute_hold" | "dispute_release";

/** An account made by the operator (the CLI): its e-mail counts as verified. */
export interface NewAccount {
  email: string;
  /** The e-mail's look-alike key (email-skeleton.ts), taken once like the e-mail; absent: none. */
  emailSkeleton?: string;
  passwordHash: string | null;
  /** Credits granted in the same transaction (sign-up bonus, or the CLI's --credits). */
  initialCredits?: { amount: Nanos; note: string };
  /** Made an operator at creation (`gateway users create --admin`). */
  isAdmin?: boolean;
  now: number;
  /** Audit events of the creation, recorded in its transaction (the CLI's): given the new account's id. */
  audit?: (accountId: string) => NewAuditEvent[];
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
  /** Absent: `api`, with no allowlists. */
  kind?: KeyKind;
  allowedModels?: string[] | null;
  allowedIps?: string[] | null;
  /** An organization member's own key: the member; absent for personal and organization keys. */
  ownerId?: string | null;
  now: number;
}

export type { KeyHolder } from "./keys/auth.ts";

export interface KeyStore {
  createKey(input: NewKey): Promise<ApiKey>;
  /** The key with this hash and what the chat path needs of its account, whatever their state; null when unknown. */
  findKeyByHash(hash: string): Promise<Caller | null>;
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
  /**
   * The decision `hitRateLimit` would make, recording nothing: for limits that count only
   * some outcomes (failed sign-ins), checked before the attempt and hit after it fails.
   */
  checkRateLimit(input: RateLimitHit): Promise<RateLimitDecision>;
  /** Events recorded for `scope` after `since`. */
  countRecentEvents(scope: string, since: number): Promise<number>;
}

// Sign-in, users, settings, key management and usage export (the account endpoints and the CLI).
// Sessions' ports are in accounts/session.ts, verification's and recovery's in accounts/store.ts.
export type { FoundSession, NewSession, SessionStore } from "./accounts/session.ts";
export type { FreeCreditOffer } from "./accounts/store.ts";

/** Only present fields change; null clears a setting or flag. */
export interface AccountChange {
  alertThreshold?: Nanos | null;
  spendLimit?: Nanos | null;
  bannedAt?: number | null;
  deletedAt?: number;
  isAdmin?: boolean;
}

export interface UserStore {
  /** The account with this e-mail and its password hash (null for accounts made without one). */
  findCredentials(email: string): Promise<{ account: Account; passwordHash: string | null } | null>;
  /** Every person's account, oldest first (organizations are not people). */
  listAccounts(): Promise<Account[]>;
  updateAccount(id: string, change: AccountChange): Promise<Account | null>;
}


/** Only present fields change; null clears an optional value. */
export interface KeyChange {
  name?: string;
  expiresAt?: number | null;
  creditLimit?: Nanos | null;
  usdPerHour?: Nanos | null;
  requestsPerHour?: number | null;
  allowedModels?: string[] | null;
  allowedIps?: string[] | null;
}

export type RotateOutcome = { rotated: ApiKey } | { refused: "not_found" | "expired" };

/** A management key as authentication reads it (`findManagementKey`). */
export interface ManagementKeyFound {
  key: ApiKey;
  /** How it was made: `cli` by the operator, who is no member. */
  origin: NewKey["origin"];
  /** The live organization whose key it is; null for a personal account's key. */
  org: { id: string; name: string } | null;
  /** Its maker's role in that organization now; null when the maker is not a member (or none is recorded). */
  makerRole: Role | null;
}

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
  /**
   * A management key by its hash, with what its power comes from, read with it at each use: for
   * an organization's key, the live organization and its maker's role there now.
   */
  findManagementKey(hash: string): Promise<ManagementKeyFound | null>;
  /** Records that the key was just used (the chat path records it with each charge; a management key here). */
  markKeyUsed(id: string, now: number): Promise<void>;
  /** Null when the account has no unrevoked key with this id. */
  revokeKey(accountId: string, id: string, now: number): Promise<ApiKey | null>;
  /** Revokes the key and creates its replacement (same name, expiry and limits) in one transaction. */
  rotateKey(accountId: string, id: string, replacement: { prefix: string; hash: string }, now: number): Promise<RotateOutcome>;
}

// The chat path's billing ports live beside their feature; named here too for the store's users.
export type { AccountAudit, Admission, BillingStore, KeyAdmission, NewReservation, ReservationOutcome, Refusal, Release, Settlement } from "./billing/store.ts";

