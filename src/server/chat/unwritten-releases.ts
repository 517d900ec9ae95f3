import type { BillingStore, Release } from "../../core/store.ts";
import type { Logger } from "../log.ts";

/** The first retry's delay; each next one waits twice as long, up to the cap. */
const FIRST_RETRY_MS = 250;
const RETRY_CAP_MS = 10_000;

/**
 * Releases this process could not write (a full disk, a database turned read-only, a lost
 * connection, a privilege taken away), written again until they are. Without this a failed
 * settlement kept its concurrency slot and its reserved credit until its lease ran out. A
 * release of a reservation that is gone already (swept, or settled after all) is a no-op, so
 * writing one twice is harmless. Bounded: after `giveUpAfterMs` (the lease) the sweeper owns it.
 */
export class UnwrittenReleases {
  private readonly pending = new Map<string, { release: Release; givenUpAt: number }>();
  private flushing: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private delayMs = FIRST_RETRY_MS;

  constructor(
    private readonly store: Pick<BillingStore, "release">,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly giveUpAfterMs: number,
  ) {}

  /** Reservations whose release is still to be written. */
  get size(): number {
    return this.pending.size;
  }

  /** Keeps `release` to be written again, soon and then less often. */
  add(release: Release): void {
    if (!this.pending.has(release.reservationId)) {
      this.log.warn("a reservation's end could not be written; releasing it again until it is", { reservationId: release.reservationId });
    }
    this.pending.set(release.reservationId, { release, givenUpAt: this.now() + this.giveUpAfterMs });
    this.delayMs = FIRST_RETRY_MS;
    this.schedule();
  }

  /**
   * Tries every pending release once, now (one pass at a time): an admission calls it first,
   * so that once writes work again the next request finds its account's slots free.
   */
  flush(): Promise<void> {
    this.flushing ??= this.writeAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async writeAll(): Promise<void> {
    for (const [id, { release, givenUpAt }] of [...this.pending]) {
      try {
        await this.store.release(release);
        this.pending.delete(id);
      } catch (error) {
        if (this.now() < givenUpAt) continue;
        this.pending.delete(id);
        this.log.error("gave up releasing a reservation; the sweeper releases it when its lease runs out", { reservationId: id, error });
      }
    }
  }

  private schedule(): void {
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().then(() => {
        this.delayMs = Math.min(this.delayMs * 2, RETRY_CAP_MS);
        this.schedule();
      });
    }, this.delayMs);
    this.timer.unref();
  }
}
