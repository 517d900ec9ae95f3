// Settle or release: one admitted request's reservation ends exactly once, and its usage-log
// row is written with that end (src/db/store/billing: the store method is the transaction).
import type { Model } from "../catalog.ts";
import { nanos, requestCost, ZERO, type Nanos } from "../money.ts";
import type { BillingStore } from "../store.ts";
import type { Charge, ChatLog, LeaseRegistry, ReservationObserver } from "./ports.ts";
import { hostedCost, type HostedTools } from "./hosted-tools.ts";
import type { Usage } from "./usage.ts";

export interface HeldReservation {
  id: string;
  accountId: string;
  keyId: string;
  model: Model;
  requestedModel: string;
  amount: Nanos;
  startedAt: number;
  /** Provider-run tools sold per call that the request offered: their calls are charged beside the tokens. */
  hostedTools?: HostedTools;
  /**
   * The worst case of the model that serves, when a fallback made it another than the dearest
   * the reservation was sized for: what an answer without usage is charged.
   */
  worstCase?: Nanos;
}

/** What a request's billing asks of the store: to hold, to charge, to let go. */
export type RequestBillingStore = Pick<BillingStore, "admitByKey" | "reserve" | "settle" | "release" | "recordRefusal">;

export interface BillingPorts {
  store: RequestBillingStore;
  leases: LeaseRegistry;
  now: () => number;
  log: ChatLog;
}

/** What a usage costs at the model's sell prices, and what caching saved; without usage, the serving model's worst case. */
export function chargeFor(usage: Usage | null, reservation: Pick<HeldReservation, "model" | "amount" | "hostedTools" | "worstCase">): Charge {
  if (!usage) return { promptTokens: 0, completionTokens: 0, cost: reservation.worstCase ?? reservation.amount, cachedTokens: 0, saved: ZERO };
  const { model } = reservation;
  const tokens = requestCost(usage.prompt_tokens, usage.completion_tokens, model, usage.cached_tokens);
  const cost = reservation.hostedTools ? nanos(tokens + hostedCost(usage.tool_calls, reservation.hostedTools)) : tokens;
  const uncached = usage.cached_tokens === 0 ? tokens : requestCost(usage.prompt_tokens, usage.completion_tokens, { ...model, cachedInputPerMTok: null });
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cost, cachedTokens: usage.cached_tokens, saved: nanos(uncached - tokens) };
}

/** One admitted request's reservation, ended exactly once: settled with the provider's usage or released on failure. */
export class BillingSession {
  private ended = false;

  constructor(
    private readonly ports: BillingPorts,
    readonly reservation: HeldReservation,
    private readonly observer: ReservationObserver,
  ) {
    ports.leases.add(reservation.id);
    observer.opened(reservation.model);
  }

  /**
   * Another candidate is tried (a fallback): its usage is charged at its prices and its ID is
   * the usage row's `model`. The reservation, sized for the dearest candidate, covers it.
   */
  servedBy(model: Model, worstCase: Nanos): void {
    this.reservation.model = model;
    this.reservation.worstCase = worstCase;
  }

  /** What `settle(usage)` charges. */
  quote(usage: Usage | null): Charge {
    return chargeFor(usage, this.reservation);
  }

  /**
   * Charges the provider's usage at the model's sell prices. Without usage the model's worst
   * case is charged (the whole reservation, unless a fallback served): the provider did the
   * work and the client agreed to that ceiling.
   */
  async settle(usage: Usage | null): Promise<Charge> {
    const r = this.reservation;
    const charge = chargeFor(usage, r);
    if (!this.begin(charge)) return charge;
    if (!usage) this.ports.log.warn("provider reported no usage; charging the reservation", { model: r.model.id });
    const now = this.ports.now();
    await this.ports.store
      .settle({
        reservationId: r.id,
        accountId: r.accountId,
        keyId: r.keyId,
        model: r.model.id,
        requestedModel: r.requestedModel,
        ...charge,
        latencyMs: now - r.startedAt,
        now,
      })
      .finally(() => this.written());
    return charge;
  }

  /** Releases the whole reservation and records why in the usage log. */
  async release(reason: string): Promise<void> {
    if (!this.begin(null)) return;
    const now = this.ports.now();
    await this.ports.store
      .release({ reservationId: this.reservation.id, reason, latencyMs: now - this.reservation.startedAt, now })
      .finally(() => this.written());
  }

  /** Releases, logging rather than throwing: for paths that are already failing. */
  releaseQuietly(reason: string): Promise<void> {
    return this.release(reason).catch((error) => this.ports.log.error("releasing a reservation failed", { error }));
  }

  private begin(charge: Charge | null): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.observer.closed(charge);
    return true;
  }

  /**
   * The reservation leaves the open set only once its end is written (or has failed): a
   * settlement can wait its turn in a Postgres batch, and shutdown must not close the database
   * under it. A failed one's lease is no longer renewed: the billing store it was given writes
   * its release again until it is written (the server's `UnwrittenReleases`), and the sweeper
   * releases it at the lease's end if that never succeeds.
   */
  private written(): void {
    this.ports.leases.delete(this.reservation.id);
  }
}
