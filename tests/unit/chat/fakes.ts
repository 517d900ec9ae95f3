// In-memory stand-ins for the chat pipeline's ports: they record what they were asked and
// answer what a test scripts. No database, no network, no clock.
import type { BillingPorts, HeldReservation } from "../../../src/core/chat/billing.ts";
import type { ChatCall, ChatObserver, ChatPorts } from "../../../src/core/chat/pipeline.ts";
import type { ChatProvider } from "../../../src/core/chat/provider.ts";
import { parseChatRequest } from "../../../src/core/chat/request.ts";
import type { Charge, ChatLog, LeaseRegistry } from "../../../src/core/chat/ports.ts";
import type { StreamSink } from "../../../src/core/chat/relay.ts";
import type { Usage } from "../../../src/core/chat/usage.ts";
import { FALLBACK_CATALOG, type Model } from "../../../src/core/catalog.ts";
import { nanos, type Nanos } from "../../../src/core/money.ts";
import type { Caller } from "../../../src/core/keys/auth.ts";
import type {
  Admission,
  BillingStore,
  KeyAdmission,
  NewReservation,
  Refusal,
  Release,
  ReservationOutcome,
  Settlement,
} from "../../../src/core/store.ts";

/** A catalog model by its public ID (a copy, so a test may change it). */
export function model(id: string): Model {
  const found = FALLBACK_CATALOG.find((m) => m.id === id);
  if (!found) throw new Error(`no model ${id} in the fallback catalog`);
  return { ...found };
}

/** The caller behind key-1 of acct-1: an active key without limits, on an account in good standing. */
export const CALLER: Caller = {
  key: {
    id: "key-1", accountId: "acct-1", name: "test", prefix: "gw-0123456", createdAt: 0, lastUsedAt: null, expiresAt: null,
    revokedAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, totalRequests: 0, totalSpend: nanos(0),
    kind: "api", allowedModels: null, allowedIps: null, ownerId: null,
  },
  account: { id: "acct-1", bannedAt: null, deletedAt: null },
};

/**
 * Records every write; `settleWith` and `releaseWith` decide how a write ends (default: at once,
 * fine). `admitByKey` finds `keyFound` and admits only when `admitsAtLookup` names a reservation.
 */
export class FakeBillingStore implements BillingStore {
  readonly asked: { keyHash: string; admission: Admission }[] = [];
  keyFound: Caller | null = CALLER;
  admitsAtLookup: string | null = null;
  readonly reserved: NewReservation[] = [];
  readonly settled: Settlement[] = [];
  readonly released: Release[] = [];
  readonly refusals: Refusal[] = [];
  reserveOutcome: ReservationOutcome = { ok: true, reservationId: "res-1" };
  settleWith: (input: Settlement) => Promise<{ balance: Nanos }> = async () => ({ balance: nanos(0) });
  releaseWith: (input: Release) => Promise<void> = async () => {};

  constructor(private readonly timeline: string[] = []) {}

  async admitByKey(keyHash: string, admission: Admission): Promise<KeyAdmission> {
    this.asked.push({ keyHash, admission });
    return { found: this.keyFound, reservationId: this.admitsAtLookup };
  }
  async reserve(input: NewReservation): Promise<ReservationOutcome> {
    this.reserved.push(input);
    return this.reserveOutcome;
  }
  settle(input: Settlement): Promise<{ balance: Nanos }> {
    this.settled.push(input);
    this.timeline.push("store.settle");
    return this.settleWith(input);
  }
  release(input: Release): Promise<void> {
    this.released.push(input);
    this.timeline.push("store.release");
    return this.releaseWith(input);
  }
  async recordRefusal(input: Refusal): Promise<void> {
    this.refusals.push(input);
  }
  async renewLeases(): Promise<void> {}
  async sweepExpiredReservations(): Promise<number> {
    return 0;
  }
  async pruneUsageWindows(): Promise<null> {
    return null;
  }
  async auditAccount(): Promise<null> {
    return null;
  }
}

export class FakeLeases implements LeaseRegistry {
  readonly held = new Set<string>();
  add(id: string): void {
    this.held.add(id);
  }
  delete(id: string): void {
    this.held.delete(id);
  }
}

export interface LogEntry {
  level: "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

export class FakeLog implements ChatLog {
  readonly entries: LogEntry[] = [];
  warn(message: string, fields?: Record<string, unknown>): void {
    this.entries.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.entries.push({ level: "error", message, fields });
  }
}

export type ObserverCall =
  | ["identify", string]
  | ["resolved", string]
  | ["opened", string]
  | ["closed", Charge | null]
  | ["providerFailed"]
  | ["fellBack", string, string, string];

/** Records the observer's calls in order, models by ID. */
export class FakeObserver implements ChatObserver {
  readonly calls: ObserverCall[] = [];
  identify(caller: Caller): void {
    this.calls.push(["identify", caller.key.id]);
  }
  resolved(m: Model): void {
    this.calls.push(["resolved", m.id]);
  }
  opened(m: Model): void {
    this.calls.push(["opened", m.id]);
  }
  closed(charge: Charge | null): void {
    this.calls.push(["closed", charge]);
  }
  providerFailed(_error: unknown): void {
    this.calls.push(["providerFailed"]);
  }
  fellBack(from: Model, to: Model, reason: string): void {
    this.calls.push(["fellBack", from.id, to.id, reason]);
  }
}

/** What the client was sent: every `emit` as written, and the events parsed (`[DONE]` kept as a string). */
export class FakeSink implements StreamSink {
  readonly writes: string[] = [];
  gone = false;

  constructor(private readonly timeline: string[] = []) {}

  emit(payload: string): void {
    this.writes.push(payload);
    for (const event of parseEvents(payload)) {
      this.timeline.push(event === "[DONE]" ? "emit [DONE]" : "emit event");
    }
  }
  /** How many writes came as bytes (a read relayed as it came). */
  bytesWrites = 0;

  emitBytes(payload: Uint8Array): void {
    this.bytesWrites++;
    this.emit(new TextDecoder().decode(payload));
  }
  async flush(): Promise<void> {}

  events(): unknown[] {
    return this.writes.flatMap(parseEvents);
  }
}

function parseEvents(payload: string): unknown[] {
  if (!payload.endsWith("\n\n")) throw new Error(`an event must end with a blank line: ${JSON.stringify(payload)}`);
  return payload
    .slice(0, -2)
    .split("\n\n")
    .map((line) => {
      if (!line.startsWith("data: ")) throw new Error(`not a data line: ${JSON.stringify(line)}`);
      const data = line.slice("data: ".length);
      return data === "[DONE]" ? data : JSON.parse(data);
    });
}

export const NOW = 1_700_000_005_000;
export const STARTED_AT = 1_700_000_000_000;

/** A reservation of `amount` for `modelId`, as the pipeline would hold it. */
export const held = (modelId: string, amount: bigint): HeldReservation => ({
  id: "res-1",
  accountId: "acct-1",
  keyId: "key-1",
  model: model(modelId),
  requestedModel: modelId,
  amount: nanos(amount),
  startedAt: STARTED_AT,
});

/** Billing ports over fresh fakes, with the clock fixed at NOW. */
export function billingPorts(timeline: string[] = []): BillingPorts & {
  store: FakeBillingStore;
  leases: FakeLeases;
  log: FakeLog;
} {
  return { store: new FakeBillingStore(timeline), leases: new FakeLeases(), now: () => NOW, log: new FakeLog() };
}

/**
 * The chat pipeline's ports over fresh fakes, with `provider`, a catalog of `catalog` and
 * `aliases`, and `call(body)`: a request made with key 1 from one address, whose signal is the
 * world's `controller`'s.
 */
export function chatWorld<P extends ChatProvider>(provider: P, catalog: Model[], aliases: Record<string, string[]> = {}) {
  const base = billingPorts();
  const ports: ChatPorts & typeof base = {
    ...base,
    provider,
    findModel: async (id) => catalog.find((m) => m.id === id) ?? null,
    findAlias: async (name) => aliases[name],
  };
  const observer = new FakeObserver();
  const controller = new AbortController();
  const call = (body: Record<string, unknown>, bodyBytes = 200): ChatCall => ({
    keyHash: "hash-of-key-1",
    clientIp: () => "203.0.113.7",
    request: parseChatRequest(body),
    bodyBytes,
    policy: { maxConcurrentRequests: 3, dashboardUrl: "https://dashboard.example" },
    leaseMs: 60_000,
    startedAt: STARTED_AT,
    observer,
    signal: controller.signal,
    controller,
    chargeWhenGone: false,
  });
  return { ports, provider, observer, store: base.store, leases: base.leases, controller, signal: controller.signal, call };
}

/** A normalised usage with no provider details. */
export const usageOf = (prompt: number, completion: number, cached = 0): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  cached_tokens: cached,
  reasoning_tokens: 0,
  details: { prompt: {}, completion: {} },
});
