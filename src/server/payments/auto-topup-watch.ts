import type { AutoTopupStore } from "../../core/checkout/auto-topup.ts";
import { runAutoTopup, type TopupRunDeps } from "../../core/checkout/auto-topup-run.ts";
import type { Nanos } from "../../core/money.ts";
import type { BillingStore, Settlement } from "../../core/store.ts";
import type { Logger } from "../log.ts";

/** How old the armed accounts may grow before a charge reloads them: what another instance turned on is seen about this late. */
const ARMED_REFRESH_MS = 10_000;

export interface AutoTopupWatchDeps extends Omit<TopupRunDeps, "store" | "provider"> {
  store: TopupRunDeps["store"] & Pick<AutoTopupStore, "listArmedAutoTopups">;
  /** Null without STRIPE_SECRET_KEY: nothing is ever bought. */
  provider: TopupRunDeps["provider"] | null;
  log: Logger;
  now: () => number;
}

/**
 * Watches settled charges for balances that fall below an account's top-up threshold, and
 * then buys its pack, off the request's path: the settlement has answered its client already.
 * Which accounts are armed is kept in memory (reloaded by charges once it is a few seconds old,
 * and at once on the instance that changed them), so that a charge of an account without
 * automatic top-up costs no query; the database's claim decides, so a stale entry never buys twice.
 */
export class AutoTopupWatch {
  private armed = new Map<string, Nanos>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  /** Accounts with an attempt running in this process: a burst of charges asks the database once. */
  private readonly running = new Set<string>();
  /** The attempts themselves, for shutdown to wait on. */
  private readonly attempts = new Set<Promise<void>>();

  constructor(private readonly deps: AutoTopupWatchDeps) {}

  /** Reloads the armed accounts. */
  async refresh(): Promise<void> {
    if (this.deps.provider === null) return;
    this.loadedAt = this.deps.now();
    try {
      const armed = await this.deps.store.listArmedAutoTopups();
      this.armed = new Map(armed.map((a) => [a.accountId, a.threshold]));
    } catch (error) {
      this.deps.log.warn("loading automatic top-ups failed", { error: (error as Error).message });
    }
  }

  /** A settled charge left `balance`: below the account's threshold, an attempt starts, unawaited. */
  charged(accountId: string, balance: Nanos): void {
    if (this.deps.now() - this.loadedAt > ARMED_REFRESH_MS) void this.refresh();
    const threshold = this.armed.get(accountId);
    if (threshold === undefined || balance >= threshold || this.running.has(accountId) || this.deps.provider === null) return;
    this.running.add(accountId);
    const attempt = runAutoTopup({ ...this.deps, provider: this.deps.provider }, accountId, this.deps.now())
      .then(async (outcome) => {
        if (outcome === "refused") await this.refresh();
        if (outcome !== "none") this.deps.log.info("automatic top-up", { accountId, outcome });
      })
      .catch((error: unknown) => this.deps.log.warn("automatic top-up failed", { accountId, error: (error as Error).message }))
      .finally(() => {
        this.running.delete(accountId);
        this.attempts.delete(attempt);
      });
    this.attempts.add(attempt);
  }

  /**
   * Resolves once the attempts running now have ended. Shutdown waits for them: one cut off
   * between its claim and Stripe's answer keeps the claim, and the account buys nothing more
   * until the claim goes stale (an hour).
   */
  async settled(): Promise<void> {
    await Promise.all(this.attempts);
  }
}

/** The store as the chat doors use it, each settled charge shown to the watch once it is written. */
export function watchingCharges<S extends Pick<BillingStore, "settle">>(store: S, watch: AutoTopupWatch): S {
  return {
    ...store,
    settle: async (input: Settlement) => {
      const settled = await store.settle(input);
      watch.charged(input.accountId, settled.balance);
      return settled;
    },
  };
}
