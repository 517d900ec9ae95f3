import type { LeaseRegistry } from "../../core/chat/ports.ts";
import type { BillingStore } from "../../core/store.ts";
import type { Logger } from "../log.ts";
import { UnwrittenReleases } from "./unwritten-releases.ts";

/**
 * Keeps the leases of this process's open reservations alive: one timer and one query for all
 * of them, so that the sweeper only collects reservations whose process has died.
 */
export class LeaseKeeper implements LeaseRegistry {
  /**
   * Reservations held by this process's requests, until their settlement or release has been
   * written (or has failed): graceful shutdown waits for it to empty before the database closes.
   */
  private readonly open = new Set<string>();
  private admitting = 0;
  /** Releases that could not be written, written again until they are (or their lease has run out). */
  readonly unwritten: UnwrittenReleases;

  constructor(store: BillingStore, log: Logger, now: () => number, leaseMs: number) {
    this.unwritten = new UnwrittenReleases(store, log, now, leaseMs);
    const timer = setInterval(() => {
      if (this.open.size === 0) return;
      store.renewLeases([...this.open], now() + leaseMs).catch((error) => log.warn("lease renewal failed", { error }));
    }, leaseMs / 3);
    timer.unref();
  }

  add(reservationId: string): void {
    this.open.add(reservationId);
  }

  delete(reservationId: string): void {
    this.open.delete(reservationId);
  }

  /** Reservations open now. */
  get size(): number {
    return this.open.size;
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
