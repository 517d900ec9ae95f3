import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { MemoryLimit, startMemoryLimit, type MemoryPorts } from "../../src/server/memory-limit.ts";

const MB = 2 ** 20;

/**
 * A process whose memory the test sets, whose collections free what the test says, on a clock
 * the test moves; `every` keeps the one check it is given, for the test to call.
 */
function scripted(options: { rssMb: number; freesMb: number }) {
  const state = {
    ...options,
    at: 0,
    collections: [] as number[],
    warnings: [] as Record<string, unknown>[],
    timer: null as { ms: number; check: () => void } | null,
  };
  const ports: MemoryPorts = {
    rss: () => state.rssMb * MB,
    collect: () => {
      state.collections.push(state.at);
      state.rssMb -= state.freesMb;
    },
    now: () => state.at,
    every: (ms, check) => {
      state.timer = { ms, check };
      return () => {
        state.timer = null;
      };
    },
    log: { warn: (_message: string, fields?: Record<string, unknown>) => void state.warnings.push(fields ?? {}) },
  };
  return { state, ports };
}

describe("MemoryLimit", () => {
  test("does nothing while resident memory is at or under the limit", () => {
    const { state, ports } = scripted({ rssMb: 200, freesMb: 50 });
    const limit = new MemoryLimit(200 * MB, ports);
    for (; state.at < 10_000; state.at += 100) limit.check();
    expect(state.collections).toEqual([]);
  });

  test("collects once memory passes the limit, at most once a second while each collection frees a sixteenth of it", () => {
    const { state, ports } = scripted({ rssMb: 250, freesMb: 12.5 });
    const limit = new MemoryLimit(200 * MB, ports);
    for (; state.at <= 2_500; state.at += 100) {
      limit.check();
      state.rssMb = 250; // a wave of streams brings it back at once
    }
    expect(state.collections).toEqual([0, 1_000, 2_000]);
    expect(state.warnings).toEqual([]);
  });

  test("backs off, doubling up to 30 s, while collections free less than a sixteenth of the limit, and says so once there", () => {
    const { state, ports } = scripted({ rssMb: 300, freesMb: 12 });
    const limit = new MemoryLimit(200 * MB, ports);
    for (; state.at <= 120_000; state.at += 100) limit.check();
    expect(state.collections).toEqual([0, 2_000, 6_000, 14_000, 30_000, 60_000, 90_000, 120_000]);
    // Said once, when the gap reaches 30 s (after the collection at 30 s).
    expect(state.warnings).toEqual([{ residentMb: 240, limitMb: 200 }]);
  });

  test.each([
    ["a collection that frees enough", 2_000, { freesMb: 13 }, [0, 2_000, 3_000]],
    ["memory back under the limit", 500, { rssMb: 150 }, [0, 1_000, 3_000]],
  ] as const)("%s sets the gap back to a second", (_, at, change, expected) => {
    const { state, ports } = scripted({ rssMb: 300, freesMb: 0 });
    const limit = new MemoryLimit(200 * MB, ports);
    limit.check(); // at 0: frees nothing, next gap 2 s
    Object.assign(state, { at }, change);
    limit.check();
    // Back over the limit, with collections that free nothing: a second, then 2 s again.
    Object.assign(state, { rssMb: 300, freesMb: 0 });
    for (state.at = at + 100; state.at <= 3_000; state.at += 100) limit.check();
    expect(state.collections).toEqual([...expected]);
  });
});

describe("startMemoryLimit", () => {
  test("watches nothing without a limit", () => {
    const { state, ports } = scripted({ rssMb: 10_000, freesMb: 0 });
    startMemoryLimit(null, ports);
    expect(state.timer).toBeNull();
  });

  test("checks every 100 ms against the limit in MB, until stopped", () => {
    const { state, ports } = scripted({ rssMb: 201, freesMb: 100 });
    const stop = startMemoryLimit(200, ports);
    expect(state.timer?.ms).toBe(100);
    state.timer?.check();
    expect(state.collections).toEqual([0]);
    stop();
    expect(state.timer).toBeNull();
  });

  test("a limit of exactly what is resident collects nothing", () => {
    const { state, ports } = scripted({ rssMb: 200, freesMb: 100 });
    startMemoryLimit(200, ports);
    state.timer?.check();
    expect(state.collections).toEqual([]);
  });
});

test("MEMORY_SOFT_LIMIT_MB is unset by default, else a whole number of MB from 64", () => {
  expect(loadConfig({}).memorySoftLimitMb).toBeNull();
  expect(loadConfig({ MEMORY_SOFT_LIMIT_MB: "200" }).memorySoftLimitMb).toBe(200);
  for (const raw of ["32", "200MB", "1.5"]) {
    expect(() => loadConfig({ MEMORY_SOFT_LIMIT_MB: raw })).toThrow(
      new ConfigError(`MEMORY_SOFT_LIMIT_MB must be a whole number from 64 to 1048576 (got "${raw}")`),
    );
  }
});
