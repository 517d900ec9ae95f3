import type { Config } from "../../config.ts";
import type { Check } from "./check.ts";

const isLoopback = (host: string) => host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.");

/** Settings that are valid but unsafe once the gateway is reachable from other machines. */
export function checkExposure(config: Pick<Config, "host" | "publicUrl" | "metricsToken" | "trustProxy">): Check[] {
  const reachable = !isLoopback(config.host);
  const publicUrl = new URL(config.publicUrl);
  const checks: Check[] = [];

  if (publicUrl.protocol === "https:") checks.push({ name: "public url", status: "ok", message: `${publicUrl.origin}: session cookies are Secure` });
  else if (isLoopback(publicUrl.hostname)) checks.push({ name: "public url", status: "ok", message: `${publicUrl.origin}: local use only` });
  else {
    checks.push({
      name: "public url",
      status: "warn",
      message: `PUBLIC_URL ${publicUrl.origin} is not https: sign-in cookies and API keys cross the network in clear; put TLS in front (docs/operations.md)`,
    });
  }

  if (config.metricsToken !== undefined) checks.push({ name: "metrics", status: "ok", message: "GET /metrics wants METRICS_TOKEN" });
  else if (!reachable) checks.push({ name: "metrics", status: "ok", message: `GET /metrics is open, on ${config.host} only` });
  else {
    checks.push({
      name: "metrics",
      status: "warn",
      message: `GET /metrics is open to anyone who reaches ${config.host}: set METRICS_TOKEN, or block /metrics at the proxy`,
    });
  }

  if (config.trustProxy && reachable) {
    checks.push({
      name: "trust proxy",
      status: "warn",
      message: `TRUST_PROXY is on while listening on ${config.host}: a client that reaches the gateway directly can choose its own IP (X-Forwarded-For) and dodge the per-IP limits; listen on 127.0.0.1 behind the proxy, or firewall the port`,
    });
  }
  return checks;
}
