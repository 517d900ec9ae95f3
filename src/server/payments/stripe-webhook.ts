import Stripe from "stripe";
import type { ProviderEvent } from "../../core/checkout/events.ts";
import { AppError } from "../../core/errors.ts";
import type { Logger } from "../log.ts";

/** Stripe's events are a few kilobytes; anything near this is not from Stripe. */
const WEBHOOK_BODY_LIMIT_BYTES = 1_048_576;

const badRequest = (message: string) => new AppError("invalid_request_error", message);

/**
 * The event in a Stripe webhook request, verified: the `Stripe-Signature` HMAC is checked over
 * the raw bytes as received (re-serialized JSON would not match), in constant time, and the
 * signed timestamp must be within Stripe's default five minutes of `now`, so a captured
 * delivery cannot be replayed later. Refusals are 400s (Stripe retries them); with no secret
 * configured nothing can be verified, which is the operator's to fix: 503.
 */
export async function verifiedStripeEvent(request: Request, secret: string | undefined, now: number, log: Logger): Promise<ProviderEvent> {
  if (secret === undefined) throw new AppError("unavailable", "Stripe webhooks are not configured");
  const signature = request.headers.get("stripe-signature");
  if (!signature) throw badRequest("Missing Stripe-Signature header");
  const tooLarge = new AppError("payload_too_large", `Request body exceeds ${WEBHOOK_BODY_LIMIT_BYTES} bytes`);
  if (Number(request.headers.get("content-length") ?? 0) > WEBHOOK_BODY_LIMIT_BYTES) throw tooLarge;
  const body = new Uint8Array(await request.arrayBuffer());
  if (body.byteLength > WEBHOOK_BODY_LIMIT_BYTES) throw tooLarge;
  try {
    return (await Stripe.webhooks.constructEventAsync(body, signature, secret, undefined, undefined, now)) as ProviderEvent;
  } catch (error) {
    // A signed body that is not JSON cannot come from Stripe either; both are refused alike.
    log.warn("stripe webhook refused", { reason: (error as Error).message.split("\n")[0] });
    throw badRequest(error instanceof Stripe.errors.StripeSignatureVerificationError ? "Invalid Stripe-Signature" : "Invalid event payload");
  }
}
