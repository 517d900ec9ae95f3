import { describe, expect, test } from "bun:test";
import { answerWithRetries, retryAfterMs, type AttemptOutcome } from "../../src/server/providers/attempts.ts";
import { KeyPool, REFUSED_REST_MS, THROTTLED_REST_MS } from "../../src/server/providers/key-pool.ts";
import { AppError } from "../../src/core/errors.ts";

const clock = (start = 1_000_000) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe("KeyPool", () => {
  test("rotates over the keys in turn", () => {
    const pool = new KeyPool(["a", "b", "c"], clock().now);
    expect([0, 1, 2, 3].map(() => pool.pick(new Set())!.secret)).toEqual(["a", "b", "c", "a"]);
  });

  test("skips a resting key until its rest is over, and keys already tried", () => {
    const time = clock();
    const pool = new KeyPool(["a", "b"], time.now);
    pool.rest(0, 30_000);
    expect([pool.pick(new Set())!.secret, pool.pick(new Set())!.secret]).toEqual(["b", "b"]);
    expect(pool.pick(new Set([1]))!.secret).toBe("a"); // every untried key rests: the soonest back
    expect(pool.pick(new Set([0, 1]))).toBeNull();
    time.advance(30_000);
    expect(new Set([pool.pick(new Set())!.secret, pool.pick(new Set())!.secret])).toEqual(new Set(["a", "b"]));
  });

  test("has no key to pick when none is configured", () => {
    expect(new KeyPool([], clock().now).pick(new Set())).toBeNull();
  });
});

test.each([
  ["30", 30_000],
  ["0", 0],
  [new Date(1_000_000 + 5_000).toUTCString(), 4_000], // HTTP dates have whole seconds
  ["soon", null],
  [null, null],
] as const)("Retry-After %p is %p ms", (header, ms) => {
  const value = retryAfterMs(header, 1_000_000 + 1_000);
  if (ms === null) expect(value).toBeNull();
  else expect(value).toBeGreaterThanOrEqual(ms);
});

describe("answerWithRetries", () => {
  /** Attempts against keys that answer with the given statuses (or throw for "down"). */
  function attempts(answers: Record<string, number | "down">, time = clock()) {
    const pool = new KeyPool(Object.keys(answers), time.now);
    const sent: string[] = [];
    const seen: [number | null, AttemptOutcome][] = [];
    const run = () =>
      answerWithRetries(
        { pool, readText: (r) => r.text(), secrets: [], observe: (index, outcome) => seen.push([index, outcome]) },
        {
          send: async (secret) => {
            sent.push(secret!);
            const answer = answers[secret!]!;
            if (answer === "down") throw new Error("connection refused");
            return new Response(JSON.stringify({ error: { message: `key ${secret}` } }), { status: answer, headers: answer === 429 ? { "retry-after": "7" } : {} });
          },
          failure: () => new AppError("provider_error", "Upstream provider request failed"),
          signal: new AbortController().signal,
        },
        time.now,
      );
    return { pool, sent, seen, run, time };
  }

  test("a refused key is tried again on another, which answers; the refused one rests ten minutes", async () => {
    const a = attempts({ bad: 401, good: 200 });
    expect((await a.run()).status).toBe(200);
    expect(a.sent).toEqual(["bad", "good"]);
    expect(a.seen).toEqual([[0, "refused"], [1, "ok"]]);
    expect(a.pool.pick(new Set())!.secret).toBe("good");
    a.time.advance(REFUSED_REST_MS);
    expect(new Set([a.pool.pick(new Set())!.secret, a.pool.pick(new Set())!.secret])).toEqual(new Set(["bad", "good"]));
  });

  test("a throttled key rests as long as Retry-After says", async () => {
    const a = attempts({ busy: 429, good: 200 });
    await a.run();
    a.time.advance(6_999);
    expect(a.pool.pick(new Set())!.secret).toBe("good");
    a.time.advance(1);
    expect(new Set([a.pool.pick(new Set())!.secret, a.pool.pick(new Set())!.secret])).toEqual(new Set(["busy", "good"]));
    expect(THROTTLED_REST_MS).toBe(30_000);
  });

  test("a rejected request (400, 422) is never retried", async () => {
    for (const status of [400, 422]) {
      const a = attempts({ one: status, two: 200 });
      const error = await a.run().catch((e: AppError) => e);
      expect(error).toMatchObject({ kind: "invalid_request_error", message: "key one" });
      expect(a.sent).toEqual(["one"]);
    }
  });

  test("at most two retries, each on another key; the last failure is told", async () => {
    const a = attempts({ k1: 500, k2: "down", k3: 503, k4: 200 });
    const error = await a.run().catch((e: AppError) => e);
    expect(error).toMatchObject({ kind: "provider_error", message: "Upstream provider request failed with status 503" });
    expect(a.sent).toEqual(["k1", "k2", "k3"]);
    expect(a.seen.map(([, o]) => o)).toEqual(["failed", "unreachable", "failed"]);
  });

  test("one key alone is not retried", async () => {
    const a = attempts({ only: 502 });
    await a.run().catch(() => {});
    expect(a.sent).toEqual(["only"]);
  });
});
