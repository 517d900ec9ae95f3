import { AppError } from "../errors.ts";
import type { Model } from "../catalog.ts";
import { DAY_MS } from "../time.ts";
import { formatUsd, nanos, ZERO, type Nanos } from "../money.ts";

// The console's figures: credit sold and spent per day, and how each model and provider does.

/** Days the console's charts may cover. */
export const MAX_STATS_DAYS = 90;
const DEFAULT_STATS_DAYS = 30;

/** Credit added on one UTC day (`Math.floor(ms / DAY_MS)`): bought through Stripe, and granted or adjusted by operators. */
export interface DayCredits {
  day: number;
  purchased: Nanos;
  granted: Nanos;
}

/** Usage of one UTC day over every account. */
export interface DayUsage {
  day: number;
  spend: Nanos;
  requests: number;
  errors: number;
}

/** Usage of one model (the resolved catalog ID) over the period. */
export interface ModelUsage {
  model: string;
  spend: Nanos;
  requests: number;
  errors: number;
  /** Sum of the requests' latencies, so that averages over several models stay exact. */
  latencyMsTotal: number;
}

export interface AdminStatsStore {
  /** Ledger credits per UTC day since `since` (a day's start); days without any are left out. */
  creditsByDay(since: number): Promise<DayCredits[]>;
  /** Usage logs per UTC day since `since`; days without any are left out. */
  usageByDay(since: number): Promise<DayUsage[]>;
  /** Usage logs per model since `since`. */
  usageByModel(since: number): Promise<ModelUsage[]>;
  /** Chat requests holding a reservation now, on every instance, per model. */
  inflightByModel(): Promise<{ model: string; requests: number }[]>;
}

/** `?days=` of `GET /admin/stats`: absent means 30; else a whole number from 1 to 90. */
export function parseStatsDays(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_STATS_DAYS;
  const days = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(days >= 1 && days <= MAX_STATS_DAYS)) {
    throw new AppError("invalid_request_error", `days must be a whole number from 1 to ${MAX_STATS_DAYS}`);
  }
  return days;
}

const usd = (amount: Nanos) => formatUsd(amount, 9);

/** Spend, requests, errors and mean latency of a group of usage (one model, or a provider's models). */
function usageView(usage: Omit<ModelUsage, "model">) {
  return {
    spendUsd: usd(usage.spend),
    requests: usage.requests,
    errors: usage.errors,
    avgLatencyMs: usage.requests === 0 ? 0 : Math.round(usage.latencyMsTotal / usage.requests),
  };
}

function byProvider(models: ModelUsage[], catalog: Map<string, Model>) {
  const totals = new Map<string, Omit<ModelUsage, "model">>();
  for (const m of models) {
    // A log of a model since removed from the catalog still counts, under "unknown".
    const provider = catalog.get(m.model)?.provider ?? "unknown";
    const sum = totals.get(provider) ?? { spend: ZERO, requests: 0, errors: 0, latencyMsTotal: 0 };
    totals.set(provider, {
      spend: nanos(sum.spend + m.spend),
      requests: sum.requests + m.requests,
      errors: sum.errors + m.errors,
      latencyMsTotal: sum.latencyMsTotal + m.latencyMsTotal,
    });
  }
  return [...totals].map(([provider, sum]) => ({ provider, ...usageView(sum) })).sort((a, b) => b.requests - a.requests);
}

/**
 * `GET /admin/stats?days=N`: per UTC day (oldest first, every day present, today last) the credit
 * sold, granted and spent and the requests and errors; per model and per provider over the same
 * days the spend, requests, errors and mean latency (busiest first); and the requests in flight now.
 */
export async function adminStats(store: AdminStatsStore, catalog: readonly Model[], days: number, now: number) {
  const today = Math.floor(now / DAY_MS);
  const firstDay = today - days + 1;
  const since = firstDay * DAY_MS;
  const [credits, usage, models, inflight] = await Promise.all([
    store.creditsByDay(since), store.usageByDay(since), store.usageByModel(since), store.inflightByModel(),
  ]);
  const creditOf = new Map(credits.map((c) => [c.day, c]));
  const usageOf = new Map(usage.map((u) => [u.day, u]));
  const byModel = [...models].sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
  return {
    days,
    daily: Array.from({ length: days }, (_, i) => {
      const day = firstDay + i;
      const c = creditOf.get(day);
      const u = usageOf.get(day);
      return {
        date: new Date(day * DAY_MS).toISOString().slice(0, 10),
        soldUsd: usd(c?.purchased ?? ZERO),
        grantedUsd: usd(c?.granted ?? ZERO),
        spentUsd: usd(u?.spend ?? ZERO),
        requests: u?.requests ?? 0,
        errors: u?.errors ?? 0,
      };
    }),
    models: byModel.map((m) => ({ model: m.model, ...usageView(m) })),
    providers: byProvider(byModel, new Map(catalog.map((m) => [m.id, m]))),
    inflight: {
      requests: inflight.reduce((sum, m) => sum + m.requests, 0),
      models: [...inflight].sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model)),
    },
  };
}
