// The usage windows' pruning (the sweeper's): minutes that no limit reads any more are deleted
// scope by scope, in steps bounded by scopes and rows, and what the limits read stays.
import { beforeEach, expect, test } from "bun:test";
import { dayMinuteOf, minuteOf, prunableBefore, windowStartMinute } from "../../src/core/billing/hour-window.ts";
import { exec, int, rows } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const NOW = Date.UTC(2026, 10, 28, 0, 30); // half an hour into a UTC day: the rolling hour began yesterday

describeEachDialect("usage windows' pruning", (dialect) => {
  const opened = useStore(dialect);
  const put = (scope: string, minute: number) =>
    opened().db.run(exec("INSERT INTO usage_windows (scope, minute, spend_nanos, requests) VALUES (?, ?, 1, 1)", scope, minute));
  const left = async () =>
    (await opened().db.run(rows("SELECT scope, minute FROM usage_windows ORDER BY scope, minute")))
      .map((r) => `${r.scope}@${int(r.minute) - minuteOf(NOW)}`);
  beforeEach(async () => {
    await opened().db.run(exec("DELETE FROM usage_windows"));
  });

  test("keeps every minute a limit reads, an hour's margin included, and deletes the rest", async () => {
    const before = prunableBefore(NOW);
    // What the limits read: the rolling hour's minutes and a member's day bucket.
    expect(before).toBeLessThan(windowStartMinute(NOW));
    expect(before).toBeLessThan(dayMinuteOf(NOW));
    for (const minute of [before - 1_000, before - 1, before, windowStartMinute(NOW) + 1, minuteOf(NOW)]) await put("a:acct", minute);
    for (const minute of [before - 5, minuteOf(NOW)]) await put("k:key", minute);
    for (const minute of [dayMinuteOf(NOW) - 1_440, dayMinuteOf(NOW)]) await put("m:org:user", minute);

    expect(await opened().store.pruneUsageWindows(null, before, { scopes: 100, rows: 1_000 })).toBeNull();
    const at = (minute: number) => minute - minuteOf(NOW);
    expect(await left()).toEqual([
      `a:acct@${at(before)}`, `a:acct@${at(windowStartMinute(NOW) + 1)}`, "a:acct@0",
      "k:key@0",
      `m:org:user@${at(dayMinuteOf(NOW))}`,
    ]);
  });

  test("a step goes no further than its scopes and rows; the walk goes on where it stopped and ends with null", async () => {
    const before = prunableBefore(NOW);
    for (const scope of ["a:1", "a:2", "k:3"]) {
      for (let i = 1; i <= 5; i++) await put(scope, before - i);
      await put(scope, before);
    }
    const old = async () => (await left()).filter((row) => !row.endsWith(`@${before - minuteOf(NOW)}`)).length;

    // One scope a step: the walk names the scope it stopped after.
    expect(await opened().store.pruneUsageWindows(null, before, { scopes: 1, rows: 1_000 })).toBe("a:1");
    expect(await old()).toBe(10);
    // Two rows a step: a scope with more is taken up again by the next step.
    let from: string | null = "a:1";
    const steps: number[] = [];
    while (await old() > 0 && steps.length < 20) {
      const had = await old();
      from = await opened().store.pruneUsageWindows(from, before, { scopes: 100, rows: 2 });
      steps.push(had - (await old()));
    }
    expect(steps.every((deleted) => deleted === 2)).toBe(true);
    expect(steps).toHaveLength(5);
    expect(await opened().store.pruneUsageWindows(from, before, { scopes: 100, rows: 2 })).toBeNull();
    expect(await left()).toHaveLength(3);
  });
});
