import { describe, expect, test } from "bun:test";
import { BillingSession, chargeFor } from "../../../src/core/chat/billing.ts";
import { nanos } from "../../../src/core/money.ts";
import { billingPorts, FakeObserver, held, NOW, STARTED_AT, usageOf } from "./fakes.ts";

// gpt-4.1 sells at $2 in and $8 out per million tokens: 2 000 and 8 000 nano-USD a token.
const RESERVED = 1_200_000n;

function session() {
  const ports = billingPorts();
  const observer = new FakeObserver();
  const billing = new BillingSession(ports, held("gpt-4.1", RESERVED), observer);
  return { ...ports, observer, billing };
}

describe("chargeFor", () => {
  test.each([
    ["usage at sell prices", usageOf(100, 50), 100, 50, 0, 600_000n],
    ["zero usage as nothing", usageOf(0, 0), 0, 0, 0, 0n],
    ["usage above the reservation in full", usageOf(1_000, 1_000), 1_000, 1_000, 0, 10_000_000n],
    ["cached tokens at the input price when the model has no cached price", usageOf(100, 50, 40), 100, 50, 40, 600_000n],
    ["no usage as the whole reservation", null, 0, 0, 0, RESERVED],
  ] as const)("charges %s, and caching saved nothing", (_title, usage, promptTokens, completionTokens, cachedTokens, cost) => {
    const reservation = held("gpt-4.1", RESERVED);
    reservation.model.cachedInputPerMTok = null;
    expect(chargeFor(usage, reservation)).toEqual({ promptTokens, completionTokens, cost: nanos(cost), cachedTokens, saved: nanos(0) });
  });

  test("charges cached tokens at the model's cached-input price, and says what that saved", () => {
    // $0.50 per million cached: 40 cached × 500 + 60 × 2 000 + 50 × 8 000 nano-USD; uncached, 40 × 2 000 more.
    const reservation = held("gpt-4.1", RESERVED);
    reservation.model.cachedInputPerMTok = nanos(500_000_000n);
    expect(chargeFor(usageOf(100, 50, 40), reservation)).toEqual({ promptTokens: 100, completionTokens: 50, cost: nanos(540_000n), cachedTokens: 40, saved: nanos(60_000n) });
  });
});

describe("BillingSession", () => {
  test("opens on construction: the observer is told and the lease is held", () => {
    const { billing, observer, leases, store } = session();
    expect(billing.reservation.id).toBe("res-1");
    expect(observer.calls).toEqual([["opened", "gpt-4.1"]]);
    expect([...leases.held]).toEqual(["res-1"]);
    expect({ settled: store.settled, released: store.released }).toEqual({ settled: [], released: [] });
  });

  test("settle charges the usage at the model's sell prices and writes the usage-log row", async () => {
    const { billing, observer, store, leases, log } = session();
    const charge = await billing.settle(usageOf(100, 50));
    const expected = { promptTokens: 100, completionTokens: 50, cost: nanos(600_000n), cachedTokens: 0, saved: nanos(0) };
    expect(charge).toEqual(expected);
    expect(store.settled).toEqual([
      {
        reservationId: "res-1",
        accountId: "acct-1",
        keyId: "key-1",
        model: "gpt-4.1",
        requestedModel: "gpt-4.1",
        ...expected,
        latencyMs: NOW - STARTED_AT,
        now: NOW,
      },
    ]);
    expect(store.released).toEqual([]);
    expect(observer.calls).toEqual([["opened", "gpt-4.1"], ["closed", expected]]);
    expect(leases.held.size).toBe(0);
    expect(log.entries).toEqual([]);
  });

  test("settle without usage charges the whole reservation and warns", async () => {
    const { billing, store, log } = session();
    expect(await billing.settle(null)).toEqual({ promptTokens: 0, completionTokens: 0, cost: nanos(RESERVED), cachedTokens: 0, saved: nanos(0) });
    expect(store.settled.map((s) => [s.promptTokens, s.completionTokens, s.cost])).toEqual([[0, 0, nanos(RESERVED)]]);
    expect(log.entries).toEqual([
      { level: "warn", message: "provider reported no usage; charging the reservation", fields: { model: "gpt-4.1" } },
    ]);
  });

  test("quote tells what settle will charge, without ending the session", async () => {
    const { billing, store, observer } = session();
    expect([billing.quote(usageOf(100, 50)), billing.quote(null)]).toEqual([
      { promptTokens: 100, completionTokens: 50, cost: nanos(600_000n), cachedTokens: 0, saved: nanos(0) },
      { promptTokens: 0, completionTokens: 0, cost: nanos(RESERVED), cachedTokens: 0, saved: nanos(0) },
    ]);
    expect({ settled: store.settled.length, calls: observer.calls.length }).toEqual({ settled: 0, calls: 1 });
    await billing.settle(usageOf(100, 50));
    expect(store.settled).toHaveLength(1);
  });

  test("release writes the reason and tells the observer there is no charge", async () => {
    const { billing, observer, store, leases } = session();
    await billing.release("provider stream failed");
    expect(store.released).toEqual([
      { reservationId: "res-1", reason: "provider stream failed", latencyMs: NOW - STARTED_AT, now: NOW },
    ]);
    expect(store.settled).toEqual([]);
    expect(observer.calls).toEqual([["opened", "gpt-4.1"], ["closed", null]]);
    expect(leases.held.size).toBe(0);
  });

  const usage = usageOf(1, 1);
  test.each([
    ["settle then release", ["settle", "release"], { settled: 1, released: 0 }],
    ["release then settle", ["release", "settle"], { settled: 0, released: 1 }],
    ["settle twice", ["settle", "settle"], { settled: 1, released: 0 }],
    ["release twice", ["release", "release"], { settled: 0, released: 1 }],
    ["release then releaseQuietly", ["release", "releaseQuietly"], { settled: 0, released: 1 }],
  ] as const)("ends exactly once: %s writes once and closes once", async (_title, steps, writes) => {
    const { billing, observer, store } = session();
    for (const step of steps) {
      if (step === "settle") await billing.settle(usage);
      else await billing[step]("why");
    }
    expect({ settled: store.settled.length, released: store.released.length }).toEqual(writes);
    expect(observer.calls.filter(([call]) => call === "closed")).toHaveLength(1);
  });

  test("a release started while a settlement is being written does nothing", async () => {
    const { billing, store } = session();
    const write = Promise.withResolvers<{ balance: ReturnType<typeof nanos> }>();
    store.settleWith = () => write.promise;
    const settling = billing.settle(usage);
    await billing.release("client disconnected before the stream finished");
    write.resolve({ balance: nanos(0) });
    await settling;
    expect({ settled: store.settled.length, released: store.released.length }).toEqual({ settled: 1, released: 0 });
  });

  test.each(["settle", "release"] as const)("the lease is held until the %s is written", async (end) => {
    const { billing, store, leases } = session();
    const write = Promise.withResolvers<void>();
    store.settleWith = () => write.promise.then(() => ({ balance: nanos(0) }));
    store.releaseWith = () => write.promise;
    const ending = end === "settle" ? billing.settle(usage) : billing.release("why");
    await Promise.resolve();
    expect([...leases.held]).toEqual(["res-1"]);
    write.resolve();
    await ending;
    expect([...leases.held]).toEqual([]);
  });

  test.each(["settle", "release"] as const)("the lease is let go when the %s fails to be written, and the failure is thrown", async (end) => {
    const { billing, store, leases } = session();
    const down = new Error("database is down");
    store.settleWith = () => Promise.reject(down);
    store.releaseWith = () => Promise.reject(down);
    const ending = end === "settle" ? billing.settle(usage) : billing.release("why");
    await expect(ending).rejects.toBe(down);
    expect(leases.held.size).toBe(0);
  });

  test("releaseQuietly logs a failed release instead of throwing", async () => {
    const { billing, store, log, leases } = session();
    const down = new Error("database is down");
    store.releaseWith = () => Promise.reject(down);
    await expect(billing.releaseQuietly("provider stream failed")).resolves.toBeUndefined();
    expect(log.entries).toEqual([{ level: "error", message: "releasing a reservation failed", fields: { error: down } }]);
    expect(leases.held.size).toBe(0);
  });
});
