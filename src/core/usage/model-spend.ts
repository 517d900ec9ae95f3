import { DAY_MS } from "../time.ts";
import { formatUsd, nanos, ZERO, type Nanos } from "../money.ts";

/** Spend and requests of one model on one UTC day (`Math.floor(ms / DAY_MS)`). */
export interface ModelDaySpend {
  day: number;
  model: string;
  spend: Nanos;
  requests: number;
}

export interface ModelSpendStore {
  /** The account's spend per model per UTC day since `since` (a day's start); empty pairs are left out. */
  spendByModelDay(accountId: string, since: number): Promise<ModelDaySpend[]>;
}

/** Models drawn on their own; the rest are summed as "Other models", so the chart stays readable on a phone. */
export const MODEL_SERIES = 5;
export const OTHER_MODELS = "other";

interface Series {
  model: string;
  spend: Nanos;
  requests: number;
  daily: Nanos[];
}

function addInto(series: Series, entry: ModelDaySpend, index: number): void {
  series.spend = nanos(series.spend + entry.spend);
  series.requests += entry.requests;
  series.daily[index] = nanos((series.daily[index] ?? ZERO) + entry.spend);
}

/**
 * `GET /account/spend/models?days=N`: spend per model per UTC day over the last N days (today
 * last). The five models with most spend are series of their own, the others one "other"
 * series; sums are exact, so the series of a day add up to that day's spend.
 */
export async function modelSpend(store: ModelSpendStore, accountId: string, days: number, now: number) {
  const firstDay = Math.floor(now / DAY_MS) - days + 1;
  const found = await store.spendByModelDay(accountId, firstDay * DAY_MS);
  const empty = (model: string): Series => ({ model, spend: ZERO, requests: 0, daily: Array.from({ length: days }, () => ZERO) });
  const perModel = new Map<string, Series>();
  for (const entry of found) {
    const series = perModel.get(entry.model) ?? empty(entry.model);
    addInto(series, entry, entry.day - firstDay);
    perModel.set(entry.model, series);
  }
  const ranked = [...perModel.values()].sort((a, b) => (a.spend === b.spend ? b.requests - a.requests : a.spend < b.spend ? 1 : -1));
  const shown = ranked.slice(0, MODEL_SERIES);
  const rest = ranked.slice(MODEL_SERIES);
  if (rest.length > 0) {
    const other = empty(OTHER_MODELS);
    for (const series of rest) {
      series.daily.forEach((spend, i) => addInto(other, { day: firstDay + i, model: OTHER_MODELS, spend, requests: 0 }, i));
      other.requests += series.requests;
    }
    shown.push(other);
  }
  return {
    days,
    dates: Array.from({ length: days }, (_, i) => new Date((firstDay + i) * DAY_MS).toISOString().slice(0, 10)),
    models: shown.map((s) => ({
      model: s.model, spendUsd: formatUsd(s.spend, 9), requests: s.requests, daily: s.daily.map((d) => formatUsd(d, 9)),
    })),
  };
}
