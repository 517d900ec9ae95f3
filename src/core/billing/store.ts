// The billing store's port: what the chat path's admission, settlement and release need, each
// one atomic step (src/db/store/billing implements it for both dialects).
import type { CacheSavings, RequestUsage } from "../entities.ts";
import type { AppError } from "../errors.ts";
import type { Caller } from "../keys/auth.ts";
import type { Nanos } from "../money.ts";
import type { ReservationPolicy } from "./reservation.ts";

export interface NewReservation {
  account: { id: string };
  /** The key's limits as authentication read them. */
  key: { id: string; creditLimit: Nanos | null; usdPerHour: Nanos | null; requestsPerHour: number | null; ownerId?: string | null };
  /** Resolved model ID, and the ID the client asked for. */
  model: string;
  requestedModel: string;
  /** The most this request may cost: estimated input plus the output ceiling, at sell prices. */
  amount: Nanos;
  /** The reservation were the output ceiling `maxTokens` (monotone); lets a refusal name the largest that fits. */
  costOf?: (maxTokens: number) => Nanos;
  policy: ReservationPolicy;
  leaseMs: number;
  now: number;
}

/** A reservation as the chat path asks for it before it knows its key: `NewReservation` without the caller. */
export type Admission = Omit<NewReservation, "account" | "key">;

export interface KeyAdmission {
  /** The key with the hash and its account, whatever their state, as `findKeyByHash` finds them; null when unknown. */
  found: Caller | null;
  /** The reservation taken with the lookup; null when the store left the decision to `reserve`. */
  reservationId: string | null;
}

export type ReservationOutcome = { ok: true; reservationId: string } | { ok: false; error: AppError };

/** A charge to write; without cache figures it is written as no cache use. */
export interface Settlement extends RequestUsage, Partial<CacheSavings> {
  reservationId: string;
  /** Who and what the reservation was for, to charge correctly even if its lease was swept meanwhile. */
  accountId: string;
  keyId: string;
  now: number;
}

export interface Release {
  reservationId: string;
  /** Why the request ended without a charge; recorded in the usage log. */
  reason: string;
  latencyMs: number;
  now: number;
  /** The key's allowlists refused the request after its hold was taken: its row says `refused`. */
  refused?: boolean;
}

/** A request its key's allowlists refused before anything was held: a usage row and one request on the key. */
export interface Refusal {
  accountId: string;
  keyId: string;
  model: string;
  requestedModel: string;
  reason: string;
  latencyMs: number;
  now: number;
}

export interface BillingStore {
  /**
   * Finds the API key by its hash and, where the store can, admits in the same round trip
   * (Postgres: one statement, when neither the key nor its account has limits of its own;
   * SQLite: one transaction, when the key has none): only when the key may be used
   * (`keyRefusal`) and the balance and the limits have room. In every other case nothing is
   * held, and the caller authenticates what was found and asks `reserve`, which decides and
   * words any refusal.
   */
  admitByKey(keyHash: string, admission: Admission): Promise<KeyAdmission>;
  /**
   * Checks every limit and the balance under the account's lock and, when they pass, holds
   * `amount` in one transaction: two requests can never both pass on the same credit.
   */
  reserve(input: NewReservation): Promise<ReservationOutcome>;
  /** Charges the actual cost, releases the rest, and writes the usage log, in one transaction. */
  settle(input: Settlement): Promise<{ balance: Nanos }>;
  /** Releases the whole reservation and records the failure; a no-op if already released. */
  release(input: Release): Promise<void>;
  /**
   * Records a request the key's allowlists refused: a `refused` usage row costing nothing, and
   * one more request (and its last use) on the key, so that a business sees who is being refused.
   */
  recordRefusal(input: Refusal): Promise<void>;
  /** Pushes live requests' leases forward so that the sweeper leaves them alone. */
  renewLeases(reservationIds: string[], leaseExpiresAt: number): Promise<void>;
  /** Releases reservations whose lease has run out (their process died); returns how many. */
  sweepExpiredReservations(now: number): Promise<number>;
  /**
   * Deletes usage-window minutes before `beforeMinute`, walking the windows' scopes in order from
   * the one after `after` (null: from the first), at most `scopes` scopes and `rows` rows. Returns
   * where the next walk starts: a scope, or null once the last scope is done.
   */
  pruneUsageWindows(after: string | null, beforeMinute: number, limits: { scopes: number; rows: number }): Promise<string | null>;
  /** The account's money from every side, for checking that they agree. */
  auditAccount(accountId: string): Promise<AccountAudit | null>;
}

export interface AccountAudit {
  balance: Nanos;
  /** Sum of the ledger's entries; equals `balance`. */
  ledgerSum: Nanos;
  /** Sum of the ledger's entries other than charges (grants, purchases, adjustments, transfers). */
  credited: Nanos;
  /** Sum of the usage logs' costs; equals the charges in the ledger. */
  usageCost: Nanos;
  reserved: Nanos;
  openReservations: number;
}
