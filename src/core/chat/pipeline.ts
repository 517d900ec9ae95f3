// The life of a chat request, step by step: resolve the model, price the worst case, admit
// (reserve it), forward to the provider, then settle the usage or release the reservation.
// Each step's rules live in the file it names; this one only puts them in order.
import type { Model } from "../catalog.ts";
import { AppError, isAppError } from "../errors.ts";
import type { ReservationPolicy } from "../reservation.ts";
import type { NewReservation } from "../store.ts";
import { BillingSession, type BillingPorts } from "./billing.ts";
import { choicesFor, upstreamBody, type UpstreamRequest } from "./families.ts";
import { malformedAnswer } from "./failures.ts";
import type { ReservationObserver } from "./ports.ts";
import { priceRequest, type Priced } from "./price.ts";
import type { ChatProvider } from "./provider.ts";
import type { Relay } from "./relay.ts";
import type { ChatRequest } from "./request.ts";
import { completionResponse, readCompletion } from "./response.ts";

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
  /** A stream whose client leaves is read to its end and charged (STREAM_DISCONNECT_POLICY=charge). */
  chargeWhenGone: boolean;
}

export interface Admitted {
  call: ChatCall;
  model: Model;
  priced: Priced;
  /** What the provider is sent, and the client's fields its family left out. */
  upstream: UpstreamRequest;
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
  // Each of the `n` choices may run to the ceiling: the reservation covers them all.
  const priced = priceRequest(call.request, model, call.bodyBytes, choicesFor(call.request, model));
  const outcome = await ports.store.reserve({
    account: call.caller.account,
    key: call.caller.key,
    model: model.id,
    requestedModel: call.request.model,
    amount: priced.amount,
    costOf: priced.costOf,
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
  return { call, model, priced, upstream: upstreamBody(call.request, model, priced.ceiling), billing };
}

const providerCall = (admitted: Admitted) => ({ model: admitted.model, body: admitted.upstream.body, signal: admitted.call.signal });

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
    const completion = readCompletion(answer, admitted.model);
    if (!completion) throw malformedAnswer();
    const charge = await admitted.billing.settle(completion.usage);
    return completionResponse(completion, admitted.model, charge.cost, ports.now());
  } catch (error) {
    return failed(admitted, error);
  }
}

/** Forwards a streamed request; once the provider has answered, what `relayStream` needs to relay it. */
export async function openStream(ports: ChatPorts, admitted: Admitted): Promise<Relay> {
  try {
    const events = await ports.provider.stream(providerCall(admitted));
    const { observer, chargeWhenGone } = admitted.call;
    return { events, model: admitted.model, billing: admitted.billing, log: ports.log, observer, chargeWhenGone };
  } catch (error) {
    return failed(admitted, error);
  }
}
