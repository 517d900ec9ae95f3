import type { Config } from "../config.ts";
import type { Store } from "../core/ports.ts";
import type { Logger } from "./log.ts";
import type { Resolve } from "./alerts/webhook-poster.ts";
import type { Metrics } from "./observability/metrics.ts";

/** What every HTTP surface is built from: configuration, the store, the log and the clock. */
export interface AppDeps {
  config: Config;
  store: Store;
  log: Logger;
  now: () => number;
  /** The serve command makes them first, to time the database too; otherwise the app makes its own. */
  metrics?: Metrics;
  /** Tells the outbox sender that an e-mail was queued, so a verification or reset link goes out at once. */
  wakeMailer?: () => void;
  /** How webhook receivers' names are resolved; tests give a resolver that answers what they need. */
  resolveHost?: Resolve;
}
