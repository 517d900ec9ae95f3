import type { Model } from "../../core/catalog.ts";
import { requestCost, type Nanos } from "../../core/money.ts";
import type { BillingStore } from "../../core/store.ts";
import type { Logger } from "../log.ts";
import type { Charge, ReservationObserver } from "../observability/request-record.ts";
import type { Usage } from "../providers/openai-compatible.ts";

/**
 * Keeps the leases of this process's open reservations alive: one timer and one query for all
 * of them, so that the sweeper only collects reservations whose process has died.
 */
export class LeaseKeeper {
  /**
   * Reservations held by this process's requests, until their settlement or release has been
   * written (or has failed): graceful shutdown waits for it to empty before the database closes.
   */
  readonly open = new Set<string>();
  private admitting = 0;

  constructor(store: BillingStore, log: Logger, now: () => number, leaseMs: number) {
    const timer = setInterval(() => {
      if (this.open.size === 0) return;
      store.renewLeases([...this.open], now() + leaseMs).catch((error) => log.warn("lease renewal failed", { error }));
    }, leaseMs / 3);
    timer.unref();
  }

  /** Counts `work` (an admission, or what follows one) among what shutdown waits for, until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.admitting++;
    const done = () => {
      this.admitting--;
    };
    work.then(done, done);
    return work;
  }

  /** What graceful shutdown waits for before the database closes: open reservations and admissions under way. */
  unfinished(): number {
    return this.open.size + this.admitting;
  }
}

/** One admitted request's reservation, ended exactly once: settled with the provider's usage or released on failure. */
export class BillingSession {
  private ended = false;

  constructor(
    private readonly store: BillingStore,
    private readonly leases: LeaseKeeper,
    private readonly now: () => number,
    private readonly log: Logger,
    readonly reservation: {
      id: string;
      accountId: string;
      keyId: string;
      model: Model;
      requestedModel: string;
      amount: Nanos;
      startedAt: number;
    },
    private readonly observer: ReservationObserver,
  ) {
    leases.open.add(reservation.id);
    observer.opened(reservation.model);
  }

  /**
   * Charges the provider's usage at the model's sell prices. Without usage the whole
   * reservation is charged: the provider did the work and the client agreed to that ceiling.
   */
  async settle(usage: Usage | null): Promise<void> {
    const r = this.reservation;
    const charge: Charge = {
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? 0,
      cost: usage ? requestCost(usage.prompt_tokens, usage.completion_tokens, r.model) : r.amount,
    };
    if (!this.begin(charge)) return;
    if (!usage) this.log.warn("provider reported no usage; charging the reservation", { model: r.model.id });
    const now = this.now();
    await this.store
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
  }

  /** Releases the whole reservation and records why in the usage log. */
  async release(reason: string): Promise<void> {
    if (!this.begin(null)) return;
    const now = this.now();
    await this.store
      .release({ reservationId: this.reservation.id, reason, latencyMs: now - this.reservation.startedAt, now })
      .finally(() => this.written());
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
   * under it. A failed one is left to the sweeper, its lease no longer renewed.
   */
  private written(): void {
    this.leases.open.delete(this.reservation.id);
  }
}
