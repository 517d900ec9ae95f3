// Webhook events: what an account's endpoint is sent, and how it can tell the gateway sent it.
// Signed as Stripe signs (`t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>">`), so that the
// receiving code people already have for Stripe works with one header name changed.
import type { PendingAlert } from "../alerts/low-balance.ts";
import { cryptoRandom, hmacSha256Hex, type RandomBytes } from "../crypto.ts";
import { formatUsd } from "../money.ts";
import { isIpLiteral, refusedAddress } from "./addresses.ts";

// `webhook.test` is sent only when the account asks for one from its settings (deliveries.ts).
export const WEBHOOK_EVENTS = ["balance.low", "key.limit_reached", "key.revoked", "purchase.completed", "credits.granted", "webhook.test"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const SIGNATURE_HEADER = "x-gateway-signature";

/** The body of an event: `{id, type, createdAt, data}`; the id is the delivery's, the same on every retry. */
export const eventBody = (id: string, type: WebhookEventType, at: number, data: Record<string, unknown>): string =>
  JSON.stringify({ id, type, createdAt: new Date(at).toISOString(), data });

/**
 * The body a queued event is sent with: as queued, or for `balance.low`, which is queued inside
 * settlements (one SQL statement on Postgres), written now from the balance after the crossing
 * and the threshold its row keeps: the same bytes on every retry.
 */
export const deliveredBody = (event: Pick<PendingAlert, "id" | "text" | "createdAt" | "balance" | "threshold">): string =>
  event.text ?? eventBody(event.id, "balance.low", event.createdAt, {
    balanceUsd: formatUsd(event.balance, 9), thresholdUsd: formatUsd(event.threshold, 9),
  });

/** The id a body carries: a redelivery's row has an id of its own, and sends the event's. */
export const bodyEventId = (body: string): string => (JSON.parse(body) as { id: string }).id;

/** The signature header's value for `body` sent at `unixSeconds`. */
export const signEvent = (secret: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${hmacSha256Hex(secret, `${unixSeconds}.${body}`)}`;

/** A signing secret: `whsec_` and 32 random bytes as hex. Shown once; kept as is, since signing needs it. */
export function newSigningSecret(random: RandomBytes = cryptoRandom): string {
  return `whsec_${Buffer.from(random(32)).toString("hex")}`;
}

const URL_MAX_LENGTH = 2_000;

/**
 * An endpoint URL as `PUT /settings/webhook` takes it: https (http too when private addresses
 * are allowed), no credentials in it, and not an IP literal the rules refuse. A name is judged
 * when it is resolved, at every delivery, and once more when it is saved (by the route).
 */
export function parseEndpointUrl(value: unknown, allowPrivate: boolean): { url: URL } | { reason: string } {
  if (typeof value !== "string" || value.trim().length === 0) return { reason: "url must be a URL such as https://example.com/hooks/gateway" };
  if (value.length > URL_MAX_LENGTH) return { reason: `url must be at most ${URL_MAX_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { reason: "url must be a URL such as https://example.com/hooks/gateway" };
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) return { reason: "url must use https" };
  if (url.username !== "" || url.password !== "") return { reason: "url must not carry a user name or password" };
  if (!allowPrivate && isIpLiteral(url.hostname)) {
    const refused = refusedAddress(url.hostname.replace(/^\[|\]$/g, ""));
    if (refused) return { reason: `url must point at a public address: ${refused}` };
  }
  return { url };
}
