import { expect, test } from "bun:test";
import { prunableBefore } from "../../../src/core/billing/hour-window.ts";
import { createLogger } from "../../../src/server/log.ts";
import { startSweeper } from "../../../src/server/sweeper.ts";
import { waitFor } from "../../support/wait.ts";

test("each sweep takes one step of the usage windows' pruning, from where the one before stopped", async () => {
  const NOW = Date.UTC(2026, 10, 28, 12);
  const steps: { after: string | null; before: number; limits: { scopes: number; rows: number } }[] = [];
  const answers = ["k:1", null, "a:9"];
  const lines: string[] = [];
  const stop = startSweeper({
    sweepExpiredReservations: async () => 0,
    sweepStoredResponses: async () => 0,
    pruneUsageWindows: async (after, before, limits) => {
      steps.push({ after, before, limits });
      return answers[steps.length - 1] ?? null;
    },
  }, createLogger({ write: (line) => lines.push(line) }), () => NOW, 5);
  try {
    await waitFor(() => steps.length >= 3, "three sweeps", 2_000);
  } finally {
    stop();
  }
  expect(steps.slice(0, 3).map((step) => step.after)).toEqual([null, "k:1", null]);
  expect(steps.every((step) => step.before === prunableBefore(NOW))).toBe(true);
  expect(steps[0]!.limits).toEqual({ scopes: 100, rows: 2_000 });
  expect(lines).toEqual([]);
});
