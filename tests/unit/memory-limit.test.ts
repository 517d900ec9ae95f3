import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { MemoryLimit, startMemoryLimit, type MemoryPorts } from "../../src/server/memory-limit.ts";

const MB = 2 ** 20;

/** A process whose memory the test sets, whose collections free what the test says, on a clock the test moves. */
function scripted(options: { rssMb: number; freesMb: number }) {
  const state = { ...options, at: 0, collections: [] as number[], warnings: [] as Record<string, unknown>[] };
  const ports: MemoryPorts = {
    rss: () => state.rssMb * MB,
    collect: () => {
      state.collections.push(state.at);
      state.rssMb -= state.freesMb;
    },
    now: () => state.at,
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

  test("backs off, doubling up to 30 s, while collections free less than a sixteenth of the limit, and says so", () => {
    const { state, ports } = scripted({ rssMb: 300, freesMb: 12 });
    const limit = new MemoryLimit(200 * MB, ports);
    for (; state.at <= 120_000; state.at += 100) limit.check();
    expect(state.collections).toEqual([0, 2_000, 6_000, 14_000, 30_000, 60_000, 90_000, 120_000]);
    expect(state.warnings.map((w) => w.nextInMs)).toEqual([2_000, 4_000, 8_000, 16_000, 30_000]);
    expect(state.warnings[0]).toEqual({ residentMb: 288, limitMb: 200, nextInMs: 2_000 });
  });

  test("a collection that frees enough again sets the gap back to a second", () => {
    const { state, ports } = scripted({ rssMb: 300, freesMb: 0 });
    const limit = new MemoryLimit(200 * MB, ports);
    limit.check(); // at 0: no help, next gap 2 s
    state.at = 2_000;
    state.freesMb = 13;
    limit.check(); // frees enough: gap back to 1 s
    state.rssMb = 300;
    state.at = 2_900;
    limit.check();
    state.at = 3_000;
    limit.check();
    expect(state.collections).toEqual([0, 2_000, 3_000]);
  });
});

describe("startMemoryLimit", () => {
  test("watches nothing without a limit", async () => {
    const { state, ports } = scripted({ rssMb: 10_000, freesMb: 0 });
    const stop = startMemoryLimit(null, ports.log as never, ports);
    await Bun.sleep(250);
    stop();
    expect(state.collections).toEqual([]);
  });

  test("reads memory every 100 ms once started, and stops when told", async () => {
    const { state, ports } = scripted({ rssMb: 300, freesMb: 200 });
    const stop = startMemoryLimit(200, ports.log as never, { ...ports, now: () => performance.now() });
    await Bun.sleep(250);
    stop();
    expect(state.collections.length).toBe(1);
    state.rssMb = 300;
    await Bun.sleep(1_200);
    expect(state.collections.length).toBe(1);
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
