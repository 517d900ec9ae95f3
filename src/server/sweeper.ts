import type { ResponsesStore } from "../core/responses/stored.ts";
import type { BillingStore } from "../core/store.ts";
import type { Logger } from "./log.ts";

/** Stored responses removed per sweep at most: a backlog (a retention just lowered) goes over several sweeps. */
const STORED_RESPONSES_PER_SWEEP = 1_000;

/**
 * Periodically releases reservations whose lease ran out: those of a process that died with
 * requests in flight. Live requests renew their leases, so they are never swept. Every
 * instance sweeps; each reservation is released once whichever gets to it first. The same
 * sweep removes stored responses past their retention, and a deleted account's.
 */
export function startSweeper(
  store: Pick<BillingStore, "sweepExpiredReservations"> & Pick<ResponsesStore, "sweepStoredResponses">,
  log: Logger,
  now: () => number,
  intervalMs: number,
): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const released = await store.sweepExpiredReservations(now());
      if (released > 0) log.warn("released expired reservations", { released });
      await store.sweepStoredResponses(now(), STORED_RESPONSES_PER_SWEEP);
    } catch (error) {
      log.warn("sweep failed", { error: (error as Error).message });
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
