// Bursts of large requests at a small hourly spend limit: the limit must hold against requests
// in flight, on one gateway or several (tests/integration/chat.hourly.test.ts, tests/scale/hourly-limits.test.ts).
import { expect } from "bun:test";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { estimatePromptTokens } from "../../src/core/chat/price.ts";
import type { Store } from "../../src/core/ports.ts";
import { expectBooksClosed } from "./books.ts";
import { hello } from "./chat.ts";
import type { FakeUpstream } from "./fake-upstream.ts";
import { waitFor } from "./wait.ts";

const nano = FALLBACK_CATALOG.find((m) => m.id === "gpt-4.1-nano")!;
const LARGE = 30_000;

// Equal byte lengths give both kinds of request the same reservation.
const streaming = hello("gpt-4.1-nano", { max_tokens: LARGE, stream: true, messages: [{ role: "user", content: "hello!" }] });
const plain = hello("gpt-4.1-nano", { max_tokens: LARGE, stream: false });
/** The i-th request of a burst: streaming and not, in turn. */
export const largeRequest = (i: number) => (i % 2 ? streaming : plain);

export const ceiling = requestCost(estimatePromptTokens(Buffer.byteLength(JSON.stringify(plain)), 1), LARGE, nano);
/** Every admitted request uses its whole output ceiling: about $0.012. */
const usage = { prompt_tokens: 11, completion_tokens: LARGE };
const cost = requestCost(usage.prompt_tokens, usage.completion_tokens, nano);
/** Room for two ceilings and half of a third. */
export const HOURLY_LIMIT = nanos(2n * ceiling + ceiling / 2n);

/**
 * Sends `total` large requests at once while the fake holds every one it is forwarded; once
 * each is refused or forwarded, lets the fake answer with the whole ceiling used. Returns the
 * answers, bodies read, with how many were forwarded.
 */
export async function heldBurst(fake: FakeUpstream, total: number, send: (i: number) => Promise<Response>) {
  const upstream = Promise.withResolvers<void>();
  fake.behave({ holdUntil: upstream.promise, usage });
  const before = fake.received.length;
  const answered: (Response | undefined)[] = [];
  const pending = Array.from({ length: total }, (_, i) => send(i).then((r) => (answered[i] = r)));
  const refused = () => answered.filter((r) => r !== undefined && r.status !== 200).length;
  await waitFor(() => refused() + fake.received.length - before === total, "every request refused or forwarded", 15_000);
  const forwarded = fake.received.length - before;
  upstream.resolve();
  const answers = await Promise.all(pending);
  const bodies = await Promise.all(answers.map((r) => r.text()));
  return { forwarded, statuses: answers.map((r) => r.status), answers, bodies };
}

/**
 * Two bursts at an account whose only limit besides the balance is an hourly spend limit of
 * HOURLY_LIMIT (the key's or the account's, named by `limit`): the first admits exactly the two
 * requests whose ceilings fit, and the second, after they settled, none; what is charged never
 * passes the limit.
 */
export async function expectHourlyLimitHolds(
  fake: FakeUpstream, store: Store, accountId: string, limit: string, send: (i: number) => Promise<Response>,
): Promise<void> {
  const first = await heldBurst(fake, 12, send);
  expect(first.forwarded).toBe(2);
  expect(first.statuses.filter((s) => s === 200)).toHaveLength(2);
  for (const [i, res] of first.answers.entries()) {
    if (res.status === 200) continue;
    expect(res.status).toBe(429);
    expect(JSON.parse(first.bodies[i] as string).error.message).toContain(limit);
    // Its ceiling fits the limit alone: waiting for the hour to drain helps.
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }
  const audit = await expectBooksClosed(store, accountId);
  expect(audit.usageCost).toBe(nanos(2n * cost));
  expect(audit.usageCost).toBeLessThanOrEqual(HOURLY_LIMIT);

  const second = await heldBurst(fake, 6, send);
  expect({ forwarded: second.forwarded, statuses: second.statuses }).toEqual({ forwarded: 0, statuses: Array(6).fill(429) });
  expect((await expectBooksClosed(store, accountId)).usageCost).toBe(audit.usageCost);
}
