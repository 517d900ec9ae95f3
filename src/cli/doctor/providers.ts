import type { ProviderConfig } from "../../config.ts";
import type { Model, Provider } from "../../core/catalog.ts";
import { displayUrl, probe, type Check } from "./check.ts";

const listed = (models: Model[]) => models.map((m) => m.id).join(", ");

/**
 * A provider's key and base URL, proven by `GET {base}/models` (cheap, authenticated, costs no
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

  if (settings.apiKey === undefined) {
    if (unused) return { name, status: "skip", message: `not used: no key and no enabled model` };
    const models = serves === null ? "its models" : `its ${serves.length} enabled models (${listed(serves)})`;
    return { name, status: "fail", message: `${variable} is not set: chat requests for ${models} will fail with 502; set it, or disable them with \`gateway models disable <id>\`` };
  }
  if (offline) return { name, status: "skip", message: `${variable} is set; ${displayUrl(settings.baseUrl)} not contacted (--offline)` };

  const url = `${settings.baseUrl}/models`;
  const answer = await probe(url, settings.apiKey);
  if ("error" in answer) return { name, status: broken, message: `cannot reach ${displayUrl(settings.baseUrl)}: ${answer.error}` };
  if (answer.status === 401 || answer.status === 403) {
    return { name, status: broken, message: `the provider refused ${variable} (GET ${displayUrl(url)} answered ${answer.status})` };
  }
  if (answer.status !== 200) return { name, status: broken, message: `GET ${displayUrl(url)} answered ${answer.status}; is ${provider.toUpperCase()}_BASE_URL right?` };
  const usage = unused ? "; no enabled model uses it" : "";
  return { name, status: "ok", message: `key accepted by ${displayUrl(settings.baseUrl)} (${answer.ms} ms)${usage}` };
}
