// What the chat pipeline needs from the process around it, beside the store and the provider.
import type { Model } from "../catalog.ts";
import type { CacheSavings } from "../entities.ts";
import type { Nanos } from "../money.ts";

/** Where the pipeline's warnings and errors go. */
export interface ChatLog {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a settled reservation charged. */
export interface Charge extends CacheSavings {
  promptTokens: number;
  completionTokens: number;
  cost: Nanos;
}

/** What a chat request's reservation tells the record of its request (its log line and metrics). */
export interface ReservationObserver {
  /** The reservation is taken and the request is about to be forwarded to `model`'s provider. */
  opened(model: Model): void;
  /**
   * The provider's answer is complete (`charge`) or has failed (null: the reservation is
   * released). Called once, before the charge or release is written.
   */
  closed(charge: Charge | null): void;
  /** The provider failed the request (answered 502, or cut its stream short), with `error`. */
  providerFailed(error: unknown): void;
}

/**
 * The process's open reservations, whose leases it keeps alive: a reservation is in it from
 * its admission until its settlement or release is written; graceful shutdown waits for it.
 */
export interface LeaseRegistry {
  add(reservationId: string): void;
  delete(reservationId: string): void;
}
