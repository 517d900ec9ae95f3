// A key's refused requests are recorded at most 60 a minute per process: a stolen key tried from
// elsewhere cannot bury the account's usage or make every attempt a database write.
import { expect, test } from "bun:test";
import { RefusalBudget } from "../../../src/server/chat/refusal-budget.ts";

const MINUTE = 60_000;

test("60 refusals of a key in a minute are recorded, the 61st is not, and the next minute starts over", () => {
  const budget = new RefusalBudget();
  const start = 1_700_000_000_000 - (1_700_000_000_000 % MINUTE);
  const taken = Array.from({ length: 61 }, (_, i) => budget.take("key-1", start + i * 100));
  expect(taken.filter(Boolean)).toHaveLength(60);
  expect(taken.at(-1)).toBe(false);
  // Another key has its own budget; the next minute, this one has its whole again.
  expect(budget.take("key-2", start + 59_000)).toBe(true);
  expect(budget.take("key-1", start + MINUTE)).toBe(true);
});
