// The life of a chat request, step by step: resolve the model, price the worst case, admit
// (reserve it), forward to the provider, then settle the usage or release the reservation.
// Each step's rules live in the file it names; this one only puts them in order.
import type { Model } from "../catalog.ts";
import { AppError, isAppError } from "../errors.ts";
import type { ReservationPolicy } from "../billing/reservation.ts";
import { accessRefusal } from "../keys/allowlist.ts";
import { keyRefusal, type Caller } from "../keys/auth.ts";
import type { Admission } from "../store.ts";
import { BillingSession, type BillingPorts } from "./billing.ts";
import { choicesFor, upstreamBody, type UpstreamRequest } from "./families.ts";
import { malformedAnswer } from "./failures.ts";
import { hostedReserve, type HostedTools } from "./hosted-tools.ts";
import { nanos } from "../money.ts";
import type { ReservationObserver } from "./ports.ts";
import { priceRequest, type Priced } from "./price.ts";
import type { ChatProvider, ProviderCall } from "./provider.ts";
import type { Relay } from "./relay.ts";
import type { ChatRequest } from "./request.ts";
import { completionResponse, readCompletion } from "./response.ts";

export interface ChatPorts extends BillingPorts {
  provider: ChatProvider;
  /** The catalog as the operator set it (cached for at most a few seconds). */
  findModel(id: string): Promise<Model | null | undefined>;
}

/** Told which key the request is made with and which catalog model it resolved to, beside the reservation's life. */
export interface ChatObserver extends ReservationObserver {
  identify(caller: Caller): void;
  resolved(model: Model): void;
}

export interface ChatCall {
  /** The hash of the API key the request is made with: admission finds the key (`admitByKey`). */
  keyHash: string;
  request: ChatRequest;
  /** The request body's size, which bounds its prompt tokens. */
  bodyBytes: number;
  policy: ReservationPolicy;
  leaseMs: number;
  startedAt: number;
  observer: ChatObserver;
  /** Aborted when the client leaves: a request not yet forwarded is not forwarded. */
  signal: AbortSignal;
  /** Provider-run tools sold per call that a native request offers: reserved and charged beside the tokens. */
  hostedTools?: HostedTools;
  /** The controller behind `signal`, which the provider's adapter may abort as well (`ProviderCall.controller`). */
  controller?: AbortController;
  /** A stream whose client leaves is read to its end and charged (STREAM_DISCONNECT_POLICY=charge). */
  chargeWhenGone: boolean;
  /** The client's address, as a key's IP allowlist judges it; asked only for a key that has one. */
  clientIp(): string;
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

/**
 * Authenticates the request's key and reserves `admission`: in one round trip where the store
 * can (`admitByKey`, given the key when a door already found it), else the key found and then `reserve`, which
 * words any refusal (402, 429).
 * Throws the key's 401 or 403 first, then the 403 of its allowlists.
 */
async function admit(ports: ChatPorts, call: ChatCall, admission: Admission): Promise<{ caller: Caller; reservationId: string }> {
  const { found, reservationId } = await ports.store.admitByKey(call.keyHash, admission);
  // A key with allowlists is never held for in the same round trip (`isRestricted`): what it may
  // do is judged here, before anything is reserved.
  const refusal = keyRefusal(found, call.startedAt) ?? accessRefusal((found as Caller).key, admission.model, call.clientIp);
  if (refusal) {
    // The store holds only for a key that may be used, judging the account by its row as
    // locked and this by the row as first read: an account unbanned in between is held for
    // and refused here. The hold goes back.
    if (reservationId) {
      const release = { reservationId, reason: refusal.message, latencyMs: ports.now() - call.startedAt, now: ports.now() };
      // Not released now, the hold is the sweeper's when its lease runs out; the client is told the refusal all the same.
      await ports.store.release(release).catch((error: unknown) => ports.log.warn("releasing a refused key's hold failed", { reservationId, error }));
    }
    throw refusal;
  }
  const caller = found as Caller;
  call.observer.identify(caller);
  if (reservationId) return { caller, reservationId };
  const outcome = await ports.store.reserve({ ...admission, account: caller.account, key: caller.key });
  if (!outcome.ok) throw outcome.error;
  return { caller, reservationId: outcome.reservationId };
}

/** The price with the sold tools' calls reserved beside the tokens, whatever the ceiling. */
function withHostedTools(priced: Priced, tools: HostedTools | undefined): Priced {
  if (!tools) return priced;
  const reserve = hostedReserve(tools);
  return { ...priced, amount: nanos(priced.amount + reserve), costOf: (ceiling) => nanos(priced.costOf(ceiling) + reserve) };
}

/** Prices the request and reserves its worst case; throws the refusal (401, 403, 402, 429) when it cannot. */
export async function admitChat(ports: ChatPorts, call: ChatCall): Promise<Admitted> {
  const model = await resolveModel(ports, call.request.model);
  call.observer.resolved(model);
  // Each of the `n` choices may run to the ceiling: the reservation covers them all.
  const priced = withHostedTools(priceRequest(call.request, model, call.bodyBytes, choicesFor(call.request, model)), call.hostedTools);
  const { caller, reservationId } = await admit(ports, call, {
    model: model.id,
    requestedModel: call.request.model,
    amount: priced.amount,
    costOf: priced.costOf,
    policy: call.policy,
    leaseMs: call.leaseMs,
    now: call.startedAt,
  });
  const billing = new BillingSession(ports, {
    id: reservationId,
    accountId: caller.account.id,
    keyId: caller.key.id,
    model,
    requestedModel: call.request.model,
    amount: priced.amount,
    startedAt: call.startedAt,
    hostedTools: call.hostedTools,
  }, call.observer);
  return { call, model, priced, upstream: upstreamBody(call.request, model, priced.ceiling), billing };
}

const providerCall = (admitted: Admitted): ProviderCall => ({
  model: admitted.model, body: admitted.upstream.body, signal: admitted.call.signal, controller: admitted.call.controller,
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
    const { observer, chargeWhenGone, request } = admitted.call;
    const usageChunk = request.stream_options?.include_usage === true;
    return { events, model: admitted.model, billing: admitted.billing, log: ports.log, observer, chargeWhenGone, usageChunk };
  } catch (error) {
    return failed(admitted, error);
  }
}
