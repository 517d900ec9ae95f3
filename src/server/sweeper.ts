import type { BillingStore } from "../core/store.ts";
import type { Logger } from "./log.ts";

/**
 * Periodically releases reservations whose lease ran out: those of a process that died with
 * requests in flight. Live requests renew their leases, so they are never swept. Every
 * instance sweeps; each reservation is released once whichever gets to it first.
 */
export function startSweeper(store: BillingStore, log: Logger, now: () => number, intervalMs: number): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const released = await store.sweepExpiredReservations(now());
      if (released > 0) log.warn("released expired reservations", { released });
    } catch (error) {
      log.warn("reservation sweep failed", { error: (error as Error).message });
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
