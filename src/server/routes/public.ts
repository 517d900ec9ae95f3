import { Elysia } from "elysia";
import { FALLBACK_CATALOG, type Model } from "../../core/catalog.ts";
import { formatUsd } from "../../core/money.ts";
import type { Store } from "../../core/ports.ts";
import { withDeadline } from "../deadline.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import type { Logger } from "../log.ts";
import type { UnwrittenReleases } from "../chat/unwritten-releases.ts";

const MODELS_CACHE_CONTROL = "public, s-maxage=60, stale-while-revalidate=300";
/** How long the public endpoints wait for the database before answering without it. */
const QUERY_TIMEOUT_MS = 2_000;

/** A catalog entry exactly as `GET /models` shows it. */
const catalogEntry = (m: Model) => ({
  model_id: m.id,
  display_name: m.displayName,
  provider: m.provider,
  category: m.category,
  context_window: m.contextWindow,
  sell_input_per_million: formatUsd(m.inputPerMTok, 4),
  sell_output_per_million: formatUsd(m.outputPerMTok, 4),
  use_case_hint: m.useCaseHint,
  speed_badge: m.speedBadge,
});

/** How long a write probe that passed is taken as still true: it takes SQLite's write lock, which a long CLI transaction may hold. */
const WRITE_PROBE_VALID_MS = 5_000;

/**
 * Whether the database answers and takes writes: a query, writes of no rows (a read-only
 * database, a revoked privilege; again at once after one failed, at most every 5 s while they
 * pass), and no release this process could not write (a full disk).
 */
function databaseCheck(store: Store, unwritten: Pick<UnwrittenReleases, "size" | "flush">, now: () => number) {
  let writableAt = -Infinity;
  return async (): Promise<void> => {
    await store.ping();
    if (now() - writableAt >= WRITE_PROBE_VALID_MS) {
      writableAt = -Infinity;
      await store.probeWrites();
      writableAt = now();
    }
    if (unwritten.size === 0) return;
    await unwritten.flush();
    if (unwritten.size > 0) throw new Error(`${unwritten.size} reservation release(s) could not be written`);
  };
}

export const publicRoutes = (store: Store, log: Logger, now: () => number, unwritten: Pick<UnwrittenReleases, "size" | "flush">) => {
  const databaseWritable = databaseCheck(store, unwritten, now);
  return new Elysia({ name: "public" })
    .get("/health", async () => {
      try {
        await withDeadline(databaseWritable(), QUERY_TIMEOUT_MS);
        return json({ status: "ok", db: "connected", ts: now() });
      } catch (error) {
        log.warn("health check failed", { error: (error as Error).message });
        return json({ status: "error", db: "disconnected", ts: now() }, 503);
      }
    })
    .get("/models", async () => {
      try {
        const models = await withDeadline(store.listModels(), QUERY_TIMEOUT_MS);
        return json(models.map(catalogEntry), 200, { "cache-control": MODELS_CACHE_CONTROL });
      } catch (error) {
        log.warn("model catalog query failed; serving the fallback registry", { error: (error as Error).message });
        return json(FALLBACK_CATALOG.map(catalogEntry), 200, {
          "cache-control": MODELS_CACHE_CONTROL,
          "x-gateway-model-source": "fallback",
        });
      }
    })
    .all("/health", methodNotAllowed(plainError, "GET"))
    .all("/models", methodNotAllowed(plainError, "GET"));
};
