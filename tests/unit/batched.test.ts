import { describe, expect, test } from "bun:test";
import { batched } from "../../src/db/batched.ts";

/** A `run` whose calls are recorded and finished by hand. */
function manualRuns() {
  const runs: { items: number[]; finish(): void; fail(error: Error): void }[] = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      runs.push({ items, finish: () => resolve(items.map((n) => `done ${n}`)), fail: reject });
    });
  return { runs, run };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("batched", () => {
  test("a call alone runs at once, by itself", async () => {
    const { runs, run } = manualRuns();
    const call = batched(run, { max: 10, inFlight: 2 });
    const answer = call(1);
    expect(runs.map((r) => r.items)).toEqual([[1]]);
    runs[0]?.finish();
    expect(await answer).toBe("done 1");
  });

  test("calls made while every run is busy wait, then go together in order, at most `max` at a time", async () => {
    const { runs, run } = manualRuns();
    const call = batched(run, { max: 3, inFlight: 2 });
    const answers = [1, 2, 3, 4, 5, 6, 7].map(call);
    expect(runs.map((r) => r.items)).toEqual([[1], [2]]);
    runs[0]?.finish();
    await settled();
    expect(runs.map((r) => r.items)).toEqual([[1], [2], [3, 4, 5]]);
    runs[1]?.finish();
    await settled();
    expect(runs.map((r) => r.items)).toEqual([[1], [2], [3, 4, 5], [6, 7]]);
    runs[2]?.finish();
    runs[3]?.finish();
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `done ${n}`));
  });

  test("a failed run fails the calls of its batch only, and the next batch still runs", async () => {
    const { runs, run } = manualRuns();
    const call = batched(run, { max: 10, inFlight: 1 });
    const first = call(1);
    const [second, third] = [call(2), call(3)];
    runs[0]?.fail(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    await settled();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3]]);
    runs[1]?.finish();
    expect(await Promise.all([second, third])).toEqual(["done 2", "done 3"]);
  });
});
