import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import { AppError } from "../core/errors.ts";
import type { Store } from "../core/store.ts";
import { startAlertSender } from "./alerts/sender.ts";
import { LeaseKeeper } from "./chat/billing-session.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import { asAppError, plainError } from "./http.ts";
import type { Logger } from "./log.ts";
import { Metrics } from "./observability/metrics.ts";
import { observabilityPlugin, requestIdOf } from "./observability/plugin.ts";
import { catalogCache } from "./catalog-cache.ts";
import { chatRoutes } from "./routes/chat.ts";
import { accountRoutes } from "./routes/account.ts";
import { adminRoutes } from "./routes/admin.ts";
import { authRoutes } from "./routes/auth.ts";
import { checkoutRoutes } from "./routes/checkout.ts";
import { dashboardApiRoutes } from "./routes/dashboard-api.ts";
import { estimatorRoutes } from "./routes/estimator.ts";
import { keyRoutes } from "./routes/keys.ts";
import { publicRoutes } from "./routes/public.ts";
import { settingsRoutes } from "./routes/settings.ts";
import { usageRoutes } from "./routes/usage.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { drain } from "./shutdown.ts";
import { startSweeper } from "./sweeper.ts";

export interface AppDeps {
  config: Config;
  store: Store;
  log: Logger;
  now: () => number;
  /** The serve command makes them first, to time the database too; otherwise the app makes its own. */
  metrics?: Metrics;
}

/** The whole HTTP surface, mounted under `BASE_PATH`. `leases` holds the chat requests' open reservations. */
export function createApp(deps: AppDeps, leases = new LeaseKeeper(deps.store, deps.log, deps.now, deps.config.reservationLeaseMs)) {
  const { config, store, log, now } = deps;
  const metrics = deps.metrics ?? new Metrics();
  metrics.countOpenReservationsWith(() => leases.open.size);
  return new Elysia({ prefix: config.basePath })
    .use(observabilityPlugin({ config, log, metrics }))
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") return plainError(new AppError("not_found", "Not found"));
      if (code === "PARSE") return plainError(new AppError("invalid_request_error", "Request body is not valid JSON"));
      if (code === "VALIDATION") return plainError(new AppError("invalid_request_error", "Invalid request body"));
      return plainError(asAppError(error, log, requestIdOf(request)));
    })
    .use(chatRoutes({ ...deps, catalog: catalogCache(store, now) }, leases))
    .use(publicRoutes(store, log, now))
    .use(estimatorRoutes({ ...deps, metrics }))
    .use(webhookRoutes(deps))
    .use(authRoutes(deps))
    .use(accountRoutes(deps))
    .use(dashboardApiRoutes(deps))
    .use(adminRoutes(deps))
    .use(dashboardRoutes(deps))
    .use(keyRoutes(deps))
    .use(settingsRoutes(deps))
    .use(usageRoutes(deps))
    .use(checkoutRoutes(deps));
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
  const app = createApp(deps, leases).listen({ port: deps.config.port, hostname: deps.config.host });
  const server = app.server;
  if (!server) throw new Error("the HTTP server did not start");
  const stopSweeper = startSweeper(deps.store, deps.log, deps.now, deps.config.sweepIntervalMs);
  const stopAlertSender = startAlertSender(deps);
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
    },
  };
}
