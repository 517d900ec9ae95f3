// The life of a chat request, step by step: resolve the model, price the worst case, admit
// (reserve it), forward to the provider, then settle the usage or release the reservation.
// Each step's rules live in the file it names; this one only puts them in order.
import type { Model } from "../catalog.ts";
import { isAppError, type AppError } from "../errors.ts";
import type { ReservationPolicy } from "../billing/reservation.ts";
import { accessRefusal, modelRefusal } from "../keys/allowlist.ts";
import { keyRefusal, type Caller } from "../keys/auth.ts";
import type { Admission } from "../store.ts";
import { BillingSession, type BillingPorts } from "./billing.ts";
import { allowedFor, candidatesOf, single, type Candidates, type CatalogPorts } from "./candidates.ts";
import { firstAnswer, type FallbackObserver } from "./fallback.ts";
import { choicesFor } from "./families.ts";
import { malformedAnswer } from "./failures.ts";
import { hostedReserve, type HostedTools } from "./hosted-tools.ts";
import { nanos, type Nanos } from "../money.ts";
import type { ReservationObserver } from "./ports.ts";
import { dearest, priceRequest, type Priced } from "./price.ts";
import type { ChatProvider } from "./provider.ts";
import type { Relay } from "./relay.ts";
import type { ChatRequest } from "./request.ts";
import { completionResponse, readCompletion } from "./response.ts";
import { chatTarget, type Aim, type Target } from "./target.ts";

export interface ChatPorts extends BillingPorts, CatalogPorts {
  provider: ChatProvider;
}

/** Told which key the request is made with and which catalog model it resolved to, beside the reservation's life. */
export interface ChatObserver extends ReservationObserver, FallbackObserver {
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
  /** How a door other than chat completions sends its request to a candidate (else as chat completions). */
  aim?: Aim;
}

export interface Admitted {
  call: ChatCall;
  priced: Priced;
  billing: BillingSession;
  /** Where the request is sent: its first candidate, then each one tried after it; once answered, the one that served. */
  target: Target;
  /** The candidates to try next, in order, should the target fail before answering (`fallback.ts`). */
  fallbacks: readonly Model[];
  /** Each fallback's worst case, in the same order. */
  fallbackCosts: readonly Nanos[];
  aim: Aim;
}

const NO_FALLBACKS: readonly Model[] = [];
const NO_COSTS: readonly Nanos[] = [];

/** The request's candidates: nearly every request names one enabled model, found in the catalog's copy and nothing more. */
async function candidatesFor(ports: ChatPorts, request: ChatRequest, bodyBytes: number): Promise<Candidates> {
  const model = request.models === undefined ? await ports.findModel(request.model) : undefined;
  return model?.enabled ? single(model) : candidatesOf(ports, request, bodyBytes);
}

/**
 * Authenticates the request's key and reserves `admission`: in one round trip where the store
 * can (`admitByKey`, given the key when a door already found it), else the key found and then `reserve`, which
 * words any refusal (402, 429).
 * Throws the key's 401 or 403 first, then the 403 of its allowlists.
 */
async function admit(ports: ChatPorts, call: ChatCall, candidates: Candidates): Promise<Held> {
  const priced = priceOf(call, candidates.models);
  const { found, reservationId } = await ports.store.admitByKey(call.keyHash, admissionOf(call, candidates, priced));
  // A key with allowlists is never held for in the same round trip (`isRestricted`): what it may
  // do is judged here, before anything is reserved. Fallbacks are only ever to models it may use.
  const unusable = keyRefusal(found, call.startedAt);
  if (unusable) {
    await releaseRefused(ports, call, reservationId, unusable, false);
    throw unusable;
  }
  const refusal = accessRefusal((found as Caller).key, null, call.clientIp);
  const allowed = refusal ? null : allowedFor(candidates, (found as Caller).key);
  const refused = refusal ?? (allowed ? null : modelRefusal(candidates.requested));
  if (refused) {
    // Refused by the key's allowlists: the business sees it in its usage and on the key.
    if (reservationId) await releaseRefused(ports, call, reservationId, refused, true);
    else await recordRefusal(ports, call, found as Caller, candidates, refused);
    throw refused;
  }
  const caller = found as Caller;
  call.observer.identify(caller);
  if (reservationId) return { caller, reservationId, candidates, priced };
  // Fewer candidates than were priced: the reservation covers the dearest of those left.
  const held = allowed === candidates ? { candidates, priced } : { candidates: allowed!, priced: priceOf(call, allowed!.models) };
  const outcome = await ports.store.reserve({ ...admissionOf(call, held.candidates, held.priced), account: caller.account, key: caller.key });
  if (!outcome.ok) throw outcome.error;
  return { caller, reservationId: outcome.reservationId, ...held };
}

/**
 * The store holds only for a key that may be used, judging the account by its row as locked and
 * the key by its row as first read: an account unbanned in between is held for and refused
 * here. The hold goes back.
 */
async function releaseRefused(ports: ChatPorts, call: ChatCall, reservationId: string | null, refused: AppError, byAllowlist: boolean) {
  if (!reservationId) return;
  const release = { reservationId, reason: refused.message, latencyMs: ports.now() - call.startedAt, now: ports.now(), refused: byAllowlist };
  // Not released now, the hold is the sweeper's when its lease runs out; the client is told the refusal all the same.
  await ports.store.release(release).catch((error: unknown) => ports.log.warn("releasing a refused key's hold failed", { reservationId, error }));
}

/** A request the key's allowlists refused, recorded; a failure to record it is logged, the client still told the refusal. */
async function recordRefusal(ports: ChatPorts, call: ChatCall, caller: Caller, candidates: Candidates, refused: AppError) {
  const refusal = {
    accountId: caller.account.id, keyId: caller.key.id, model: candidates.models[0]!.id, requestedModel: candidates.requested,
    reason: refused.message, latencyMs: ports.now() - call.startedAt, now: ports.now(),
  };
  await ports.store.recordRefusal(refusal).catch((error: unknown) => ports.log.warn("recording a refused request failed", { keyId: caller.key.id, error }));
}

/** What admission holds for: the key, the reservation, and the candidates the key may use with their price. */
interface Held {
  caller: Caller;
  reservationId: string;
  candidates: Candidates;
  priced: Priced;
}

/**
 * The worst case of the request on any of its candidates: each of the `n` choices may run to
 * the ceiling, and sold tools' calls are reserved beside the tokens.
 */
function priceOf(call: ChatCall, models: readonly Model[]): Priced {
  const priced = models.length === 1 ? priceOn(call, models[0]!) : dearest(models.map((model) => priceOn(call, model)));
  return withHostedTools(priced, call.hostedTools);
}

const priceOn = (call: ChatCall, model: Model): Priced => priceRequest(call.request, model, call.bodyBytes, choicesFor(call.request, model));

const admissionOf = (call: ChatCall, candidates: Candidates, priced: Priced): Admission => ({
  model: candidates.models[0]!.id,
  requestedModel: candidates.requested,
  amount: priced.amount,
  costOf: priced.costOf,
  policy: call.policy,
  leaseMs: call.leaseMs,
  now: call.startedAt,
});

/** The price with the sold tools' calls reserved beside the tokens, whatever the ceiling. */
function withHostedTools(priced: Priced, tools: HostedTools | undefined): Priced {
  if (!tools) return priced;
  const reserve = hostedReserve(tools);
  return { ...priced, amount: nanos(priced.amount + reserve), costOf: (ceiling) => nanos(priced.costOf(ceiling) + reserve) };
}

/** Prices the request and reserves its worst case; throws the refusal (401, 403, 402, 429) when it cannot. */
export async function admitChat(ports: ChatPorts, call: ChatCall): Promise<Admitted> {
  const asked = await candidatesFor(ports, call.request, call.bodyBytes);
  call.observer.resolved(asked.models[0]!);
  const { caller, reservationId, candidates, priced } = await admit(ports, call, asked);
  const [model, ...fallbacks] = candidates.models as [Model, ...Model[]];
  const billing = new BillingSession(ports, {
    id: reservationId,
    accountId: caller.account.id,
    keyId: caller.key.id,
    model,
    requestedModel: candidates.requested,
    amount: priced.amount,
    startedAt: call.startedAt,
    hostedTools: call.hostedTools,
  }, call.observer);
  const aim = call.aim ?? ((m: Model) => chatTarget(call.request, m, ports.provider));
  if (fallbacks.length === 0) return { call, priced, billing, target: aim(model), fallbacks: NO_FALLBACKS, fallbackCosts: NO_COSTS, aim };
  const fallbackCosts = fallbacks.map((m) => withHostedTools(priceOn(call, m), call.hostedTools).amount);
  return { call, priced, billing, target: aim(model), fallbacks, fallbackCosts, aim };
}

/** A failed forward releases the reservation, saying why in the usage log, and fails the request. */
async function failed(admitted: Admitted, error: unknown): Promise<never> {
  if (isAppError(error) && error.kind === "provider_error") admitted.call.observer.providerFailed(error);
  await admitted.billing.releaseQuietly(isAppError(error) ? error.message : "internal error");
  throw error;
}

/** Forwards a non-streamed request, charges its usage and answers the client's response body. */
export async function completeChat(ports: ChatPorts, admitted: Admitted): Promise<Record<string, unknown>> {
  try {
    const answer = await firstAnswer(admitted, (target, call) => target.provider.complete(call));
    const { model } = admitted.target;
    const completion = readCompletion(answer, model);
    if (!completion) throw malformedAnswer();
    const charge = await admitted.billing.settle(completion.usage);
    return completionResponse(completion, model, charge.cost, ports.now());
  } catch (error) {
    return failed(admitted, error);
  }
}

/** Forwards a streamed request; once the provider has answered, what `relayStream` needs to relay it. */
export async function openStream(ports: ChatPorts, admitted: Admitted): Promise<Relay> {
  try {
    const events = await firstAnswer(admitted, (target, call) => target.provider.stream(call));
    const { observer, chargeWhenGone, request } = admitted.call;
    const usageChunk = request.stream_options?.include_usage === true;
    return { events, model: admitted.target.model, billing: admitted.billing, log: ports.log, observer, chargeWhenGone, usageChunk };
  } catch (error) {
    return failed(admitted, error);
  }
}
