import type { ProviderConfig } from "../../config.ts";
import type { Model, Provider } from "../../core/catalog.ts";
import { displayUrl, probe, type Check } from "./check.ts";

const listed = (models: Model[]) => models.map((m) => m.id).join(", ");

/**
 * A provider's keys and base URL, each key proven by `GET {base}/models` (cheap, authenticated, costs no
 * tokens) unless offline. Required (a failure is `fail`) only while the catalog has enabled
 * models it serves; when the database could not be read (`enabledModels` null) it is assumed used.
 */
export async function checkProvider(
  provider: Provider,
  settings: ProviderConfig,
  enabledModels: Model[] | null,
  offline: boolean,
): Promise<Check> {
  const name = `provider ${provider}`;
  const variable = `${provider.toUpperCase()}_API_KEY`;
  const serves = enabledModels?.filter((m) => m.provider === provider) ?? null;
  const unused = serves !== null && serves.length === 0;
  const broken = unused ? "warn" : "fail";

  if (settings.apiKeys.length === 0) {
    if (unused) return { name, status: "skip", message: `not used: no key and no enabled model` };
    const models = serves === null ? "its models" : `its ${serves.length} enabled models (${listed(serves)})`;
    return { name, status: "fail", message: `${variable} is not set: chat requests for ${models} will fail with 502; set it, or disable them with \`gateway models disable <id>\`` };
  }
  const keys = settings.apiKeys.length === 1 ? "" : ` (${settings.apiKeys.length} keys)`;
  if (offline) return { name, status: "skip", message: `${variable} is set${keys}; ${displayUrl(settings.baseUrl)} not contacted (--offline)` };

  const checks = await Promise.all(settings.apiKeys.map((key) => checkKey(settings.baseUrl, key, variable)));
  const failed = checks.flatMap((c, i) => ("problem" in c ? [{ ...c, position: i + 1 }] : []));
  const usage = unused ? "; no enabled model uses it" : "";
  if (failed.length === 0) {
    const ms = Math.max(...checks.map((c) => ("ms" in c ? c.ms : 0)));
    const accepted = settings.apiKeys.length === 1 ? "key accepted" : `all ${settings.apiKeys.length} keys accepted`;
    return { name, status: "ok", message: `${accepted} by ${displayUrl(settings.baseUrl)} (${ms} ms)${usage}` };
  }
  if (settings.apiKeys.length === 1) return { name, status: broken, message: failed[0]!.problem };
  // Requests rotate away from a refused key, so one bad key of several degrades but does not break.
  const status = failed.length === checks.length ? broken : "warn";
  return { name, status, message: failed.map((f) => `key ${f.position} of ${checks.length}: ${f.problem}`).join("; ") };
}

/** One key proven by `GET {base}/models`, or what is wrong with it. */
async function checkKey(baseUrl: string, key: string, variable: string): Promise<{ ms: number } | { problem: string }> {
  const url = `${baseUrl}/models`;
  const answer = await probe(url, key);
  if ("error" in answer) return { problem: `cannot reach ${displayUrl(baseUrl)}: ${answer.error}` };
  if (answer.status === 401 || answer.status === 403) {
    return { problem: `the provider refused ${variable} (GET ${displayUrl(url)} answered ${answer.status})` };
  }
  if (answer.status !== 200) return { problem: `GET ${displayUrl(url)} answered ${answer.status}; is ${variable.replace("_API_KEY", "_BASE_URL")} right?` };
  return { ms: answer.ms };
}
