import { Elysia } from "elysia";
import { AppError } from "../core/errors.ts";
import { startAlertSender } from "./alerts/sender.ts";
import { LeaseKeeper } from "./chat/lease-keeper.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import type { AppDeps } from "./deps.ts";
import { asAppError, chatError, plainError } from "./http.ts";
import { Metrics } from "./observability/metrics.ts";
import { observabilityPlugin, requestIdOf } from "./observability/plugin.ts";
import { catalogCache } from "./catalog-cache.ts";
import { chatRoutes } from "./routes/v1/chat.ts";
import { openAiModelRoutes } from "./routes/v1/models.ts";
import { accountRoutes } from "./routes/account/account.ts";
import { accountSecurityRoutes } from "./routes/account/security.ts";
import { adminRoutes } from "./routes/admin.ts";
import { authRoutes } from "./routes/account/auth.ts";
import { checkoutRoutes } from "./routes/account/checkout.ts";
import { orgRoutes } from "./routes/account/orgs.ts";
import { adminOrgRoutes } from "./routes/admin-orgs.ts";
import { dashboardApiRoutes } from "./routes/account/history.ts";
import { estimatorRoutes } from "./routes/estimator.ts";
import { keyRoutes } from "./routes/account/keys.ts";
import { publicRoutes } from "./routes/public.ts";
import { settingsRoutes } from "./routes/account/settings.ts";
import { webhookSettingsRoutes } from "./routes/account/webhook.ts";
import { usageRoutes } from "./routes/account/usage.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { drain } from "./shutdown.ts";
import { processMemory, startMemoryLimit } from "./memory-limit.ts";
import { startSweeper } from "./sweeper.ts";
import { AutoTopupWatch, watchingCharges } from "./payments/auto-topup-watch.ts";
import { RefusalBudget } from "./chat/refusal-budget.ts";
import { stripeClient } from "./payments/stripe.ts";
import { stripeOffSession } from "./payments/stripe-off-session.ts";
import { autoTopupRoutes } from "./routes/account/auto-topup.ts";
import { deploymentKey, sealWith } from "./secret-key.ts";

/** The whole HTTP surface, mounted under `BASE_PATH`. `leases` holds the chat requests' open reservations. */
export function createApp(
  deps: AppDeps,
  leases = new LeaseKeeper(deps.store, deps.log, deps.now, deps.config.reservationLeaseMs),
  topups = autoTopupWatch(deps),
) {
  const { config, store, log, now } = deps;
  const metrics = deps.metrics ?? new Metrics();
  metrics.countOpenReservationsWith(() => leases.size);
  const catalog = catalogCache(store, now);
  const key = deploymentKey(config);
  // Postgres instances cannot agree on a key one of them makes: without SECRET_KEY, nothing is sealed.
  if (!key) log.warn("no SECRET_KEY: translated models' reasoning is not sealed, so agents cannot send it back (DeepSeek's thinking mode then refuses tool loops)");
  const seal = sealWith(key);
  return new Elysia({ prefix: config.basePath })
    .use(observabilityPlugin({ config, log, metrics }))
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") {
        // Under /v1 the OpenAI SDKs read errors in the chat shape.
        const path = new URL(request.url).pathname.slice(config.basePath.length);
        if (path === "/v1" || path.startsWith("/v1/")) {
          return chatError(new AppError("unknown_resource", `Unknown request URL: ${request.method} ${path}`));
        }
        return plainError(new AppError("not_found", "Not found"));
      }
      if (code === "PARSE") return plainError(new AppError("invalid_request_error", "Request body is not valid JSON"));
      if (code === "VALIDATION") return plainError(new AppError("invalid_request_error", "Invalid request body"));
      return plainError(asAppError(error, log, requestIdOf(request)));
    })
    .use(chatRoutes({ ...deps, store: watchingCharges(store, topups), catalog, metrics, seal, refusals: new RefusalBudget() }, leases))
    .use(openAiModelRoutes(catalog, store, now))
    .use(publicRoutes(store, log, now, leases.unwritten))
    .use(estimatorRoutes({ ...deps, metrics }))
    .use(webhookRoutes(deps, topups))
    .use(authRoutes(deps))
    .use(accountRoutes(deps))
    .use(accountSecurityRoutes(deps))
    .use(dashboardApiRoutes(deps))
    .use(adminRoutes(deps))
    .use(adminOrgRoutes(deps))
    .use(dashboardRoutes(deps))
    .use(keyRoutes(deps))
    .use(settingsRoutes(deps))
    .use(autoTopupRoutes(deps, topups))
    .use(webhookSettingsRoutes(deps))
    .use(usageRoutes(deps))
    .use(checkoutRoutes(deps))
    .use(orgRoutes(deps));
}

/** What buys an account's pack off-session when its charges take it below its threshold. */
function autoTopupWatch({ config, store, log, now }: AppDeps): AutoTopupWatch {
  const stripe = stripeClient(config.stripe);
  return new AutoTopupWatch({ store, log, now, dashboardUrl: config.dashboardUrl, provider: stripe === null ? null : stripeOffSession(stripe, log) });
}

export interface RunningServer {
  url: string;
  port: number;
  /**
   * Stops accepting and lets requests in flight finish until `graceOver` resolves (or for as
   * long as they take, without it), then cuts off the rest and waits for their releases; see `drain`.
   */
  stop(graceOver?: Promise<unknown>): Promise<void>;
}

export function startServer(deps: AppDeps): RunningServer {
  const leases = new LeaseKeeper(deps.store, deps.log, deps.now, deps.config.reservationLeaseMs);
  let wake = () => {};
  const topups = autoTopupWatch(deps);
  const app = createApp({ ...deps, wakeMailer: () => wake() }, leases, topups).listen({
    port: deps.config.port,
    hostname: deps.config.host,
    // Elysia turns SO_REUSEPORT on unless told otherwise: a second gateway on the same port
    // would then start, and the kernel would split the connections between the two.
    reusePort: deps.config.reusePort,
  });
  const server = app.server;
  if (!server) throw new Error("the HTTP server did not start");
  const stopSweeper = startSweeper(deps.store, deps.log, deps.now, deps.config.sweepIntervalMs);
  const stopMemoryLimit = startMemoryLimit(deps.config.memorySoftLimitMb, processMemory(deps.log));
  const sender = startAlertSender(deps);
  wake = sender.wake;
  const stopAlertSender = sender.stop;
  return {
    url: `http://${deps.config.host.includes(":") ? `[${deps.config.host}]` : deps.config.host}:${server.port}${deps.config.basePath}`,
    port: server.port ?? 0,
    stop: async (graceOver) => {
      stopSweeper();
      await stopAlertSender();
      await drain(
        { stopAccepting: () => app.stop(false), cutOff: () => server.stop(true), openReservations: () => leases.unfinished() },
        graceOver,
        deps.log,
      );
      // Automatic top-ups the last charges started: within the same grace.
      await Promise.race([topups.settled(), ...(graceOver ? [graceOver] : [])]);
      // Kept until the streams being drained have ended: they are what it collects after.
      stopMemoryLimit();
    },
  };
}
