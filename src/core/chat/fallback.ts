// Trying a request's candidates in turn: the next one only when the last failed before anything
// reached the client, after its provider's own key retries, and for a failure another model may
// not share (DESIGN, "Fallbacks and model aliases"). Everything else fails the request as it is.
import type { Model } from "../catalog.ts";
import { isAppError } from "../errors.ts";
import type { Nanos } from "../money.ts";
import { fallbackReasonOf, type FallbackReason } from "./failures.ts";
import type { ProviderCall } from "./provider.ts";
import type { Aim, Target } from "./target.ts";

/** Told of each candidate given up for the next, beside the provider failures it already counts. */
export interface FallbackObserver {
  providerFailed(error: unknown): void;
  fellBack(from: Model, to: Model, reason: FallbackReason): void;
}

/** What of an admitted request its attempts read and move on. */
export interface Attempted {
  call: { signal: AbortSignal; controller?: AbortController; observer: FallbackObserver };
  /** The candidate being tried; once one answers, the one that served. */
  target: Target;
  fallbacks: readonly Model[];
  /** Each fallback's worst case, in the same order: what it is charged should it answer without usage. */
  fallbackCosts: readonly Nanos[];
  aim: Aim;
  billing: { servedBy(model: Model, worstCase: Nanos): void };
}

/**
 * The provider call for the target. A request with fallbacks gives each attempt a controller of
 * the adapter's own, following the client's signal: the timeout that ends one candidate's
 * attempt must not abort the next one's.
 */
export const providerCall = (attempted: Attempted): ProviderCall => ({
  model: attempted.target.model,
  body: attempted.target.upstream.body,
  signal: attempted.call.signal,
  controller: attempted.fallbacks.length === 0 ? attempted.call.controller : undefined,
});

/**
 * The first answer of the target and then of each fallback in turn: `send` resolves once its
 * provider has answered and before anything is written to the client. Leaves `target` on the
 * candidate that answered; throws the last failure.
 */
export async function firstAnswer<T>(attempted: Attempted, send: (target: Target, call: ProviderCall) => Promise<T>): Promise<T> {
  for (let next = 0; ; next++) {
    try {
      return await send(attempted.target, providerCall(attempted));
    } catch (error) {
      const reason = fallbackReasonOf(error);
      const to = attempted.fallbacks[next];
      if (reason === null || to === undefined || attempted.call.signal.aborted) throw error;
      if (isAppError(error) && error.kind === "provider_error") attempted.call.observer.providerFailed(error);
      attempted.call.observer.fellBack(attempted.target.model, to, reason);
      attempted.target = attempted.aim(to);
      attempted.billing.servedBy(to, attempted.fallbackCosts[next]!);
    }
  }
}
