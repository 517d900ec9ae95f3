// The life of a chat request, step by step: resolve the model, price the worst case, admit
// (reserve it), forward to the provider, then settle the usage or release the reservation.
// Each step's rules live in the file it names; this one only puts them in order.
import type { Model } from "../catalog.ts";
import { AppError, isAppError } from "../errors.ts";
import type { ReservationPolicy } from "../reservation.ts";
import type { NewReservation } from "../store.ts";
import { BillingSession, type BillingPorts } from "./billing.ts";
import { upstreamBody } from "./families.ts";
import { malformedAnswer } from "./failures.ts";
import type { ReservationObserver } from "./ports.ts";
import { priceRequest, type Priced } from "./price.ts";
import type { ChatProvider } from "./provider.ts";
import type { Relay } from "./relay.ts";
import type { ChatRequest } from "./request.ts";
import { toCompletion } from "./response.ts";

export interface ChatPorts extends BillingPorts {
  provider: ChatProvider;
  /** The catalog as the operator set it (cached for at most a few seconds). */
  findModel(id: string): Promise<Model | null | undefined>;
}

/** Told which catalog model the request resolved to, beside the reservation's life. */
export interface ChatObserver extends ReservationObserver {
  resolved(model: Model): void;
}

export interface ChatCall {
  caller: { account: NewReservation["account"]; key: NewReservation["key"] };
  request: ChatRequest;
  /** The request body's size, which bounds its prompt tokens. */
  bodyBytes: number;
  policy: ReservationPolicy;
  leaseMs: number;
  startedAt: number;
  observer: ChatObserver;
  /** Aborted when the client leaves: a request not yet forwarded is not forwarded. */
  signal: AbortSignal;
}

export interface Admitted {
  call: ChatCall;
  model: Model;
  priced: Priced;
  billing: BillingSession;
}

/** An enabled catalog model, or the spec's 400 naming what the client asked for. */
async function resolveModel(ports: ChatPorts, id: string): Promise<Model> {
  const model = await ports.findModel(id);
  if (!model || !model.enabled) {
    throw new AppError("invalid_request_error", `The model \`${id}\` does not exist or is not enabled`);
  }
  return model;
}

/** Prices the request and reserves its worst case; throws the refusal (402, 429) when it cannot. */
export async function admitChat(ports: ChatPorts, call: ChatCall): Promise<Admitted> {
  const model = await resolveModel(ports, call.request.model);
  call.observer.resolved(model);
  const priced = priceRequest(call.request, model, call.bodyBytes);
  const outcome = await ports.store.reserve({
    account: call.caller.account,
    key: call.caller.key,
    model: model.id,
    requestedModel: call.request.model,
    amount: priced.amount,
    policy: call.policy,
    leaseMs: call.leaseMs,
    now: call.startedAt,
  });
  if (!outcome.ok) throw outcome.error;
  const billing = new BillingSession(ports, {
    id: outcome.reservationId,
    accountId: call.caller.account.id,
    keyId: call.caller.key.id,
    model,
    requestedModel: call.request.model,
    amount: priced.amount,
    startedAt: call.startedAt,
  }, call.observer);
  return { call, model, priced, billing };
}

const providerCall = (admitted: Admitted) => ({
  model: admitted.model,
  body: upstreamBody(admitted.call.request, admitted.model, admitted.priced.ceiling),
  signal: admitted.call.signal,
});

/** A failed forward releases the reservation, saying why in the usage log, and fails the request. */
async function failed(admitted: Admitted, error: unknown): Promise<never> {
  if (isAppError(error) && error.kind === "provider_error") admitted.call.observer.providerFailed();
  await admitted.billing.releaseQuietly(isAppError(error) ? error.message : "internal error");
  throw error;
}

/** Forwards a non-streamed request, charges its usage and answers the client's response body. */
export async function completeChat(ports: ChatPorts, admitted: Admitted): Promise<Record<string, unknown>> {
  try {
    const answer = await ports.provider.complete(providerCall(admitted));
    const completion = toCompletion(answer, admitted.model, ports.now());
    if (!completion) throw malformedAnswer();
    await admitted.billing.settle(completion.usage);
    return completion.response;
  } catch (error) {
    return failed(admitted, error);
  }
}

/** Forwards a streamed request; once the provider has answered, what `relayStream` needs to relay it. */
export async function openStream(ports: ChatPorts, admitted: Admitted): Promise<Relay> {
  try {
    const events = await ports.provider.stream(providerCall(admitted));
    return { events, model: admitted.model, billing: admitted.billing, log: ports.log, observer: admitted.call.observer };
  } catch (error) {
    return failed(admitted, error);
  }
}
