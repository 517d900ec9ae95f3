import { beforeAll, expect, test } from "bun:test";
import type { Store } from "../../src/core/ports.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const NOW = Date.UTC(2026, 5, 1, 12);
const MINUTE = 60_000;

describeEachDialect("the rate-limit store", (dialect) => {
  const opened = useStore(dialect);
  let store: Store;
  beforeAll(() => {
    store = opened().store;
  });

  test("checkRateLimit decides as hitRateLimit would, and records nothing", async () => {
    const limit = { scope: `check-${dialect}`, limit: 2, windowMs: 10 * MINUTE };
    expect(await store.checkRateLimit({ ...limit, now: NOW })).toEqual({ allowed: true, remaining: 2 });
    expect(await store.checkRateLimit({ ...limit, now: NOW })).toEqual({ allowed: true, remaining: 2 });
    await store.hitRateLimit({ ...limit, now: NOW });
    await store.hitRateLimit({ ...limit, now: NOW + MINUTE });
    expect(await store.checkRateLimit({ ...limit, now: NOW + 2 * MINUTE })).toEqual({ allowed: false, retryAfterSeconds: 8 * 60 });
    expect(await store.countRecentEvents(limit.scope, 0)).toBe(2);
    expect(await store.checkRateLimit({ ...limit, now: NOW + 10 * MINUTE })).toEqual({ allowed: true, remaining: 1 });
  });
});
