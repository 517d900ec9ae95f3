import { expect, test } from "bun:test";
import type { Release } from "../../../src/core/store.ts";
import { UnwrittenReleases } from "../../../src/server/chat/unwritten-releases.ts";
import { silentLogger } from "../../../src/server/log.ts";
import { waitFor } from "../../support/wait.ts";

const release = (reservationId: string): Release => ({ reservationId, reason: "test", latencyMs: 1, now: 0 });

/** A store whose writes fail while `refusing` is set, recording the releases it wrote. */
function flakyStore() {
  const state = { refusing: true, written: [] as string[], attempts: 0 };
  const store = {
    release: async (input: Release) => {
      state.attempts++;
      if (state.refusing) throw new Error("attempt to write a readonly database");
      state.written.push(input.reservationId);
    },
  };
  return { state, store };
}

test("a release is kept while writes fail and written by the next flush once they work", async () => {
  const { state, store } = flakyStore();
  const unwritten = new UnwrittenReleases(store, silentLogger, () => 0, 300_000);
  unwritten.add(release("r1"));
  await unwritten.flush();
  expect([unwritten.size, state.written]).toEqual([1, []]);
  state.refusing = false;
  await unwritten.flush();
  expect([unwritten.size, state.written]).toEqual([0, ["r1"]]);
});

test("a release is written in the background, without a flush, once writes work", async () => {
  const { state, store } = flakyStore();
  const unwritten = new UnwrittenReleases(store, silentLogger, () => 0, 300_000);
  unwritten.add(release("r1"));
  await waitFor(() => state.attempts >= 1, "a first retry");
  state.refusing = false;
  await waitFor(() => unwritten.size === 0, "the retry that writes it", 5_000);
  expect(state.written).toEqual(["r1"]);
});

test("a release still failing after the lease is given up to the sweeper", async () => {
  const { store } = flakyStore();
  let now = 0;
  const unwritten = new UnwrittenReleases(store, silentLogger, () => now, 1_000);
  unwritten.add(release("r1"));
  await unwritten.flush();
  expect(unwritten.size).toBe(1);
  now = 1_000;
  await unwritten.flush();
  expect(unwritten.size).toBe(0);
});
