// Delivers a webhook event: POSTs its body, signed, to the account's current endpoint. The
// endpoint's name is resolved for this delivery and every address it resolves to is checked
// before the connection is made to the one checked, so a name that answers a public address
// when saved and a private one later (DNS rebinding) reaches nothing.
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { PendingAlert } from "../../core/alerts/low-balance.ts";
import { isIpLiteral, refusedAddress } from "../../core/webhooks/addresses.ts";
import { deliveredBody, SIGNATURE_HEADER, signEvent } from "../../core/webhooks/events.ts";
import type { WebhookStore } from "../../core/webhooks/store.ts";

/** The addresses a host name resolves to. */
export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolve = (host) => lookup(host, { all: true, verbatim: true });

export interface WebhookPosterDeps {
  store: Pick<WebhookStore, "webhookEndpoint">;
  resolve: Resolve;
  /** WEBHOOK_ALLOW_PRIVATE: any address (tests, private networks). */
  allowPrivate: boolean;
  timeoutMs: number;
  now: () => number;
}

/** How much of a receiver's refusal is kept as its answer. */
const ANSWER_MAX_LENGTH = 200;

/** POSTs the event to its account's endpoint as it is now: the receiver's 2xx status, or throws its answer. */
export const webhookPoster = (deps: WebhookPosterDeps) => async (event: PendingAlert): Promise<string> => {
  const endpoint = await deps.store.webhookEndpoint(event.accountId);
  // Removed since the event was queued: nobody is listening, and nothing is sent.
  if (!endpoint) return "not sent: the account has no webhook endpoint";
  const body = deliveredBody(event);
  const signature = signEvent(endpoint.secret, body, Math.floor(deps.now() / 1000));
  return post(new URL(endpoint.url), body, signature, deps);
};

/** Resolves like the system, but refuses (as a lookup error) a name with any address the rules refuse. */
function checkedLookup(deps: WebhookPosterDeps): LookupFunction {
  return ((host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    deps.resolve(host).then((found) => {
      const refused = deps.allowPrivate ? null : found.map((a) => refusedAddress(a.address)).find((reason) => reason !== null);
      if (found.length === 0 || refused) return callback(new Error(`refused: ${host} resolves to ${refused?.replace(" is in", ", in") ?? "no address"}`));
      const first = found[0] as { address: string; family: number };
      return options?.all ? callback(null, [first]) : callback(null, first.address, first.family);
    }, (error: Error) => callback(new Error(`${host} could not be resolved: ${error.message}`)));
  }) as LookupFunction;
}

function post(url: URL, body: string, signature: string, deps: WebhookPosterDeps): Promise<string> {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const refused = !deps.allowPrivate && isIpLiteral(literal) ? refusedAddress(literal) : null;
  if (refused) return Promise.reject(new Error(`refused: ${refused}`));
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "gateway-webhooks", [SIGNATURE_HEADER]: signature },
      lookup: checkedLookup(deps),
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (text.length < ANSWER_MAX_LENGTH) text += chunk;
      });
      response.on("end", () => {
        clearTimeout(timer);
        const status = response.statusCode ?? 0;
        const answer = `${status}${text.trim() === "" ? "" : `: ${text.trim().replace(/\s+/g, " ").slice(0, ANSWER_MAX_LENGTH)}`}`;
        if (status >= 200 && status < 300) resolve(String(status));
        else reject(new Error(answer));
      });
      response.on("error", (error) => reject(error));
    });
    // A receiver that never answers is cut here; the event is tried again later.
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${deps.timeoutMs / 1000} s`)), deps.timeoutMs);
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
