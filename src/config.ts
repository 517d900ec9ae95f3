import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { PROVIDERS, type Provider } from "./core/catalog.ts";
import { parseUsd, type Nanos } from "./core/money.ts";
import { PACK_IDS, type PackId } from "./core/checkout/packs.ts";
import { AGENT_BODY_LIMIT_BYTES, BODY_LIMIT_BYTES } from "./server/body.ts";

/** The largest body limit an operator may set: a request body is held in memory whole. */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

export interface ProviderConfig {
  baseUrl: string;
  /** The provider's Anthropic-compatible API (`<P>_ANTHROPIC_BASE_URL`): `/v1/messages` is forwarded there natively; null: translated. */
  anthropicBaseUrl: string | null;
  /** `<P>_API_KEY` as a comma-separated list; empty when unset. */
  apiKeys: string[];
}

/** Everything the gateway reads from its environment, validated once at start-up. */
export interface Config {
  databaseUrl: string;
  port: number;
  host: string;
  /** SO_REUSEPORT (`REUSE_PORT=on`): several processes share the port; off, a taken port stops `serve`. */
  reusePort: boolean;
  /** Mount prefix such as "/api", or "" for none. */
  basePath: string;
  publicUrl: string;
  dashboardUrl: string;
  providers: Record<Provider, ProviderConfig>;
  providerTimeoutMs: number;
  /** The body limit of `/v1/chat/completions` (the spec's 64 KB unless raised for coding agents). */
  chatMaxBodyBytes: number;
  /** The body limit of `/v1/messages` and `/v1/responses`, where agents send their whole sessions. */
  agentMaxBodyBytes: number;
  /** How long stored Responses API state is kept (`RESPONSES_RETENTION_DAYS`); 0: nothing is stored. */
  responsesRetentionDays: number;
  /** What a client leaving mid-stream means: release the reservation (the spec's rule), or read on and charge. */
  streamDisconnectPolicy: StreamDisconnectPolicy;
  stripe: {
    secretKey: string | undefined;
    webhookSecret: string | undefined;
    apiBase: string | undefined;
    prices: Record<PackId, string | undefined>;
    /** STRIPE_INVOICES=on: Checkout collects billing details and tax IDs and Stripe issues an invoice. */
    invoices: boolean;
  };
  purchaseCapacity: Nanos | null;
  freeCredits: Nanos;
  freeCreditsPerIpPerDay: number;
  /** Sign-ups, and separately password-reset requests, allowed per IP in a rolling hour. */
  authPerIpPerHour: number;
  smtpUrl: string | undefined;
  alertFrom: string;
  /** How often each instance sends due low-balance alerts; also the first retry's delay after a failed send. */
  alertIntervalMs: number;
  estimatorModel: string | undefined;
  /** How long the estimator model may take before the estimator answers 504 (the spec's 120 s). */
  estimatorTimeoutMs: number;
  trustProxy: boolean;
  /** Webhook URLs may be plain http and point at private, loopback and link-local addresses (tests, private networks). */
  webhookAllowPrivate: boolean;
  /** How long a webhook receiver has to answer before the delivery is cut and retried. */
  webhookTimeoutMs: number;
  /** How long a reservation stays valid without its request finishing; a crashed process's are swept after it. */
  reservationLeaseMs: number;
  sweepIntervalMs: number;
  maxConcurrentRequestsPerAccount: number;
  /** After SIGTERM, how long requests in flight may take to finish before they are cut off and released. */
  shutdownGraceMs: number;
  /** How long the chat path waits for the database before anything is forwarded; then it answers 503. */
  databaseTimeoutMs: number;
  /** Postgres: named prepared statements; off behind a transaction-pooling pooler (PgBouncer, Supavisor). */
  databasePreparedStatements: boolean;
  /** Resident memory, in MB, past which the process collects its garbage in full (at most once a second); null: never. */
  memorySoftLimitMb: number | null;
  /** Log lines below this level are dropped. */
  logLevel: LogLevel;
  /** When set, `GET /metrics` wants `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * The deployment's secret key (`SECRET_KEY`, or the file `SECRET_KEY_FILE` names): 32 bytes.
   * Null when neither is set; a SQLite deployment then keeps one in a file beside its database
   * (server/secret-key.ts).
   */
  secretKey: Uint8Array | null;
  /** Provider-run tools the operator sells (`HOSTED_TOOL_PRICES`), by type, at their price per call. */
  hostedToolPrices: ReadonlyMap<string, Nanos>;
}

const LOG_LEVELS = ["info", "warn", "error"] as const;
const STREAM_DISCONNECT_POLICIES = ["release", "charge"] as const;
type StreamDisconnectPolicy = (typeof STREAM_DISCONNECT_POLICIES)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  override name = "ConfigError";
}

const DEFAULT_PROVIDER_URLS: Record<Provider, string> = {
  openai: "https://api.openai.com/v1",
  deepseek: "https://api.deepseek.com/v1",
  moonshot: "https://api.moonshot.ai/v1",
  xai: "https://api.x.ai/v1",
  meta: "https://api.llama.com/compat/v1",
};

// Providers that document an Anthropic-compatible API (DeepSeek: api-docs.deepseek.com/guides/anthropic_api;
// Moonshot: api.moonshot.ai/anthropic, used by Claude Code with Kimi models).
const DEFAULT_ANTHROPIC_URLS: Partial<Record<Provider, string>> = {
  deepseek: "https://api.deepseek.com/anthropic",
  moonshot: "https://api.moonshot.ai/anthropic",
};

type Env = Record<string, string | undefined>;

export interface ConfigOverrides {
  port?: number;
  host?: string;
  databaseUrl?: string;
}

/** Readers of environment variables that throw a ConfigError naming the variable. */
function envReader(env: Env) {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
  const usd = (name: string, fallback: string | null): Nanos | null => {
    const raw = read(name) ?? fallback;
    if (raw === null) return null;
    const value = parseUsd(raw);
    if (value === null) throw new ConfigError(`${name} must be a non-negative USD amount (got "${raw}")`);
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name)?.toLowerCase() ?? fallback;
    if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(", ")} (got "${raw}")`);
    return raw as T;
  };
  const flag = (name: string): boolean => ["1", "true", "yes", "on"].includes((read(name) ?? "").toLowerCase());
  const url = (name: string, fallback: string): string => {
    const raw = read(name) ?? fallback;
    try {
      new URL(raw);
    } catch {
      // The value is not echoed: URLs such as SMTP_URL and DATABASE_URL carry passwords.
      throw new ConfigError(`${name} must be an absolute URL such as https://host/path`);
    }
    return raw.replace(/\/+$/, "");
  };
  return { read, integer, usd, oneOf, flag, url };
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** HOST checked before PUBLIC_URL is made from it: an IP address, or a name (numbers and dots alone are a mistyped address). */
function validHost(host: string): string {
  if (isIP(host) !== 0 || (HOST_NAME.test(host) && !/^[\d.]+$/.test(host))) return host;
  throw new ConfigError(`HOST must be an IP address or a host name, such as 127.0.0.1, 0.0.0.0, :: or localhost (got "${host}")`);
}

export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const { read, integer, usd, oneOf, flag, url } = envReader(env);
  const port = overrides.port ?? integer("PORT", 3000, 0, 65535);
  const host = overrides.host ?? validHost(read("HOST") ?? "127.0.0.1");
  const basePath = normalizeBasePath(read("BASE_PATH"));
  const publicUrl = url("PUBLIC_URL", `http://${host.includes(":") ? `[${host}]` : host}:${port}`);
  const databaseUrl = overrides.databaseUrl ?? read("DATABASE_URL") ?? "sqlite:./data/gateway.db";
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be sqlite:<path> or postgres://… (got "${databaseUrl.split(":")[0]}:…")`);
  }

  const providers = Object.fromEntries(
    PROVIDERS.map((p) => {
      const prefix = p.toUpperCase();
      const apiKeys = (read(`${prefix}_API_KEY`) ?? "").split(",").map((k) => k.trim()).filter(Boolean);
      // Set but empty turns a default off: that provider's Messages requests are translated.
      const anthropicName = `${prefix}_ANTHROPIC_BASE_URL`;
      const anthropicDefault = env[anthropicName]?.trim() === "" ? undefined : DEFAULT_ANTHROPIC_URLS[p];
      const anthropic = read(anthropicName) !== undefined || anthropicDefault ? url(anthropicName, anthropicDefault ?? "") : null;
      return [p, { baseUrl: url(`${prefix}_BASE_URL`, DEFAULT_PROVIDER_URLS[p]), anthropicBaseUrl: anthropic, apiKeys }];
    }),
  ) as Record<Provider, ProviderConfig>;

  const prices = Object.fromEntries(PACK_IDS.map((id) => [id, read(`STRIPE_PRICE_${id.toUpperCase()}`)])) as Record<
    PackId,
    string | undefined
  >;

  return {
    databaseUrl,
    port,
    host,
    reusePort: oneOf("REUSE_PORT", ["on", "off"], "off") === "on",
    basePath,
    publicUrl,
    dashboardUrl: url("DASHBOARD_URL", `${publicUrl}${basePath}/dashboard`),
    providers,
    providerTimeoutMs: integer("PROVIDER_TIMEOUT_MS", 120_000, 1, 3_600_000),
    chatMaxBodyBytes: integer("CHAT_MAX_BODY_BYTES", BODY_LIMIT_BYTES, 1_024, MAX_BODY_BYTES),
    agentMaxBodyBytes: integer("AGENT_MAX_BODY_BYTES", AGENT_BODY_LIMIT_BYTES, 1_024, MAX_BODY_BYTES),
    responsesRetentionDays: integer("RESPONSES_RETENTION_DAYS", 30, 0, 3_650),
    streamDisconnectPolicy: oneOf("STREAM_DISCONNECT_POLICY", STREAM_DISCONNECT_POLICIES, "release"),
    stripe: {
      secretKey: read("STRIPE_SECRET_KEY"),
      webhookSecret: read("STRIPE_WEBHOOK_SECRET"),
      apiBase: read("STRIPE_API_BASE") === undefined ? undefined : url("STRIPE_API_BASE", ""),
      prices,
      invoices: oneOf("STRIPE_INVOICES", ["on", "off"], "off") === "on",
    },
    purchaseCapacity: usd("PURCHASE_CAPACITY_USD", null),
    freeCredits: usd("FREE_CREDITS_USD", "5") as Nanos,
    freeCreditsPerIpPerDay: integer("FREE_CREDITS_PER_IP_PER_DAY", 3, 0, 1_000_000),
    authPerIpPerHour: integer("AUTH_PER_IP_PER_HOUR", 10, 1, 1_000_000),
    smtpUrl: read("SMTP_URL") === undefined ? undefined : url("SMTP_URL", ""),
    alertFrom: read("ALERT_FROM") ?? "gateway@localhost",
    alertIntervalMs: integer("ALERT_INTERVAL_MS", 30_000, 10, 3_600_000),
    estimatorModel: read("ESTIMATOR_MODEL"),
    estimatorTimeoutMs: integer("ESTIMATOR_TIMEOUT_MS", 120_000, 1, 3_600_000),
    trustProxy: flag("TRUST_PROXY"),
    webhookAllowPrivate: flag("WEBHOOK_ALLOW_PRIVATE"),
    webhookTimeoutMs: integer("WEBHOOK_TIMEOUT_MS", 10_000, 100, 120_000),
    reservationLeaseMs: integer("RESERVATION_LEASE_MS", 300_000, 1_000, 86_400_000),
    sweepIntervalMs: integer("SWEEP_INTERVAL_MS", 30_000, 100, 3_600_000),
    maxConcurrentRequestsPerAccount: integer("MAX_CONCURRENT_REQUESTS", 3, 1, 10_000),
    shutdownGraceMs: integer("SHUTDOWN_GRACE_MS", 25_000, 0, 3_600_000),
    databaseTimeoutMs: integer("DATABASE_TIMEOUT_MS", 10_000, 100, 600_000),
    databasePreparedStatements: oneOf("DATABASE_PREPARED_STATEMENTS", ["on", "off"], "on") === "on",
    memorySoftLimitMb: read("MEMORY_SOFT_LIMIT_MB") === undefined ? null : integer("MEMORY_SOFT_LIMIT_MB", 0, 64, 1_048_576),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    metricsToken: read("METRICS_TOKEN"),
    secretKey: secretKeyOf(read),
    hostedToolPrices: hostedToolPrices(read("HOSTED_TOOL_PRICES")),
  };
}

/** A secret key as its 64 hex characters, as bytes, or a ConfigError naming where it came from (never the value). */
export function parseSecretKey(text: string, source: string): Uint8Array {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new ConfigError(`${source} must hold 64 hexadecimal characters (32 random bytes, e.g. from \`openssl rand -hex 32\`)`);
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

function secretKeyOf(read: (name: string) => string | undefined): Uint8Array | null {
  const inline = read("SECRET_KEY");
  const file = read("SECRET_KEY_FILE");
  if (inline !== undefined && file !== undefined) throw new ConfigError("SECRET_KEY and SECRET_KEY_FILE are both set: set one");
  if (inline !== undefined) return parseSecretKey(inline, "SECRET_KEY");
  if (file === undefined) return null;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`SECRET_KEY_FILE ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseSecretKey(text, `SECRET_KEY_FILE ${file}`);
}

/** `web_search=0.01,file_search=0.0025`: each provider-run tool type sold, at its USD price per call. */
function hostedToolPrices(raw: string | undefined): ReadonlyMap<string, Nanos> {
  const prices = new Map<string, Nanos>();
  for (const entry of (raw ?? "").split(",").map((e) => e.trim()).filter(Boolean)) {
    const [type = "", price = ""] = entry.split("=").map((part) => part.trim());
    const amount = parseUsd(price);
    if (!/^[a-z][a-z0-9_]*$/.test(type) || amount === null || ["function", "custom", "namespace"].includes(type)) {
      throw new ConfigError(`HOSTED_TOOL_PRICES must list provider-run tool types with their USD price per call, such as web_search=0.01 (got "${entry}")`);
    }
    prices.set(type, amount);
  }
  return prices;
}

function normalizeBasePath(raw: string | undefined): string {
  if (raw === undefined || raw === "/") return "";
  const path = `/${raw.replace(/^\/+|\/+$/g, "")}`;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) throw new ConfigError(`BASE_PATH must be a path such as /api (got "${raw}")`);
  return path;
}
