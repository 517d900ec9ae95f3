// The rules of an account's webhook endpoint: set (with a new secret, shown once), removed, and
// read back with its recent deliveries.
import { AppError } from "../errors.ts";
import { newSigningSecret, parseEndpointUrl } from "./events.ts";
import { isIpLiteral, refusedAddress } from "./addresses.ts";
import { deliveryView } from "./deliveries.ts";
import type { WebhookStore } from "./store.ts";

/** How many deliveries the settings show. */
const RECENT_DELIVERIES = 20;

/** Resolves a host name to its addresses, as the delivery will. */
export type HostAddresses = (host: string) => Promise<{ address: string }[]>;

/**
 * `PUT /settings/webhook {url}`: the endpoint saved, replacing any other, with a new signing
 * secret, answered once. A name is resolved now too, so that an endpoint that could never be
 * delivered to is refused when it is typed; each delivery checks again.
 */
export async function setWebhook(
  store: WebhookStore,
  input: { accountId: string; body: Record<string, unknown>; allowPrivate: boolean; resolve: HostAddresses; now: number },
): Promise<{ url: string; secret: string }> {
  const parsed = parseEndpointUrl(input.body.url, input.allowPrivate);
  if ("reason" in parsed) throw new AppError("invalid_request_error", parsed.reason);
  const host = parsed.url.hostname;
  if (!input.allowPrivate && !isIpLiteral(host)) {
    const found = await input.resolve(host).catch(() => []);
    if (found.length === 0) throw new AppError("invalid_request_error", `url's host ${host} could not be resolved`);
    const refused = found.map((a) => refusedAddress(a.address)).find((reason) => reason !== null);
    if (refused) throw new AppError("invalid_request_error", `url must point at a public address: ${host} resolves to ${refused.replace(" is in", ", in")}`);
  }
  // Kept as the account wrote it (URL's own form would add a trailing slash, say), once it parsed.
  const endpoint = { url: (input.body.url as string).trim(), secret: newSigningSecret(), createdAt: input.now };
  await store.setWebhookEndpoint(input.accountId, endpoint);
  return { url: endpoint.url, secret: endpoint.secret };
}

/** `GET /settings/webhook`: the endpoint (never its secret) and its latest deliveries, newest first, with what each sends. */
export async function webhookView(store: WebhookStore, accountId: string) {
  const [endpoint, deliveries] = await Promise.all([store.webhookEndpoint(accountId), store.recentWebhookDeliveries(accountId, RECENT_DELIVERIES)]);
  return { url: endpoint?.url ?? null, deliveries: deliveries.map(deliveryView) };
}
