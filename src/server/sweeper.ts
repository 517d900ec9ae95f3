import type { ResponsesStore } from "../core/responses/stored.ts";
import { prunableBefore } from "../core/billing/hour-window.ts";
import type { BillingStore } from "../core/store.ts";
import type { Logger } from "./log.ts";

/** Stored responses removed per sweep at most: a backlog (a retention just lowered) goes over several sweeps. */
const STORED_RESPONSES_PER_SWEEP = 1_000;
/**
 * One step of the usage windows' pruning per sweep, one short transaction: with a sweep every
 * 30 s, up to 12,000 scopes (accounts and keys) an hour, and a backlog (an upgraded database's)
 * 4,000 rows a minute.
 */
const USAGE_WINDOWS_PER_SWEEP = { scopes: 100, rows: 2_000 };

/**
 * Periodically releases reservations whose lease ran out: those of a process that died with
 * requests in flight. Live requests renew their leases, so they are never swept. Every
 * instance sweeps; each reservation is released once whichever gets to it first. The same
 * sweep removes stored responses past their retention, and a deleted account's, and takes a
 * step of deleting usage-window minutes that no limit reads any more.
 */
export function startSweeper(
  store: Pick<BillingStore, "sweepExpiredReservations" | "pruneUsageWindows"> & Pick<ResponsesStore, "sweepStoredResponses">,
  log: Logger,
  now: () => number,
  intervalMs: number,
): () => void {
  let running = false;
  // Where the usage windows' walk goes on from: a scope, or null to start from the first.
  let windowsFrom: string | null = null;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const released = await store.sweepExpiredReservations(now());
      if (released > 0) log.warn("released expired reservations", { released });
      await store.sweepStoredResponses(now(), STORED_RESPONSES_PER_SWEEP);
      windowsFrom = await store.pruneUsageWindows(windowsFrom, prunableBefore(now()), USAGE_WINDOWS_PER_SWEEP);
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
