import { Elysia } from "elysia";
import { FALLBACK_CATALOG, type Model } from "../../core/catalog.ts";
import { AppError, isAppError, MESSAGES } from "../../core/errors.ts";
import { answerEstimator, type AskModel } from "../../core/estimator/answer.ts";
import { parseEstimatorRequest } from "../../core/estimator/request.ts";
import { estimatorReply } from "../../core/estimator/text.ts";
import type { AppDeps } from "../deps.ts";
import { BodyCutShort, readJsonBody } from "../body.ts";
import { clientIp } from "../client-ip.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import { estimatorCall } from "../providers/estimator-call.ts";

/** The spec's estimator rate: 20 requests per IP in a rolling hour, counted in the database. */
export const ESTIMATOR_RATE_LIMIT = { limit: 20, windowMs: 60 * 60 * 1000 };

/**
 * `POST /estimator`, public. Checks run cheapest first: body size (413), then validation (400),
 * then the per-IP limit (429), so only well-formed requests write to the database or reach a
 * model. Then the estimate: the estimator model's answer, or the deterministic one.
 */
export const estimatorRoutes = (deps: AppDeps, askModel: AskModel = estimatorCall(deps.config.providers)) => {
  const { config, store, log, now, metrics } = deps;
  const sdkBaseUrl = `${config.publicUrl}${config.basePath}/v1`;

  // Prices come from the live catalog; the fallback registry stands in when it cannot be read
  // (as for GET /models) or has no enabled model, so there is always something to price.
  const priceList = async (): Promise<readonly Model[]> => {
    try {
      const models = await store.listModels();
      if (models.length > 0) return models;
      log.warn("no enabled models; the estimator prices from the fallback registry");
    } catch (error) {
      log.warn("model catalog query failed; the estimator prices from the fallback registry", { error });
    }
    return FALLBACK_CATALOG;
  };

  return new Elysia({ name: "estimator" })
    .post(
      "/estimator",
      async ({ request, server }) => {
        // A body that is not JSON has no messages array: the spec's first error row.
        const body = await readJsonBody(request).catch((error: unknown) => {
          // (A client that left mid-body is not answered at all, nor counted against its address.)
          if (isAppError(error) && error.kind === "invalid_request_error" && !(error instanceof BodyCutShort)) return { value: undefined };
          throw error;
        });
        const messages = parseEstimatorRequest(body.value);

        const ip = clientIp(request, server, config.trustProxy);
        const hit = await store.hitRateLimit({ scope: `estimator:ip:${ip}`, ...ESTIMATOR_RATE_LIMIT, now: now() });
        if (!hit.allowed) {
          throw new AppError("rate_limit_error", MESSAGES.estimatorRateLimited, { retryAfterSeconds: hit.retryAfterSeconds });
        }

        const content = await answerEstimator({
          messages,
          catalog: await priceList(),
          sdkBaseUrl,
          estimatorModelId: config.estimatorModel ?? null,
          askModel,
          startDeadline: () => AbortSignal.timeout(config.estimatorTimeoutMs),
          onFallback: (reason, error) => {
            metrics?.estimatorFallback();
            log.warn(`${reason}; answering with the deterministic estimate`, { error });
          },
        });
        return json(estimatorReply(content), 200, { "cache-control": "no-store" });
      },
      { parse: "none" },
    )
    .all("/estimator", methodNotAllowed(plainError, "POST"));
};
