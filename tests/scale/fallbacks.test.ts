// Two `gateway serve` processes on one Postgres database, 20 requests at once through both, each
// failing on a dear first model (its provider answers 503) and served by a cheap second: the one
// reservation of each is the dear model's, so the balance admits exactly the requests whose dear
// ceilings fit, whichever instance they reach; each is charged once, at the cheap model's prices.
import { expect, setDefaultTimeout, test } from "bun:test";
import { estimatePromptTokens } from "../../src/core/chat/price.ts";
import { nanos, requestCost } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { expectBooksClosed } from "../support/books.ts";
import { postChat } from "../support/chat.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { CHEAP, DEAR, useFallbackProviders } from "../support/fallback-providers.ts";
import { heldBurst } from "../support/hourly-burst.ts";
import { useInstances } from "../support/instances.ts";

setDefaultTimeout(30_000);
const { failing, answering, env: providers } = useFallbackProviders();
const LARGE = 30_000; // heldBurst's fake answers with the whole of it used
const body = { models: [DEAR.id, CHEAP.id], messages: [{ role: "user", content: "hello" }], max_tokens: LARGE };
const HELD = requestCost(estimatePromptTokens(Buffer.byteLength(JSON.stringify(body)), 1), LARGE, DEAR);
const CHARGED = requestCost(11, LARGE, CHEAP);

describeOnPostgres("two instances, 20 fallbacks at once on a small balance", () => {
  const cluster = useInstances("postgres", 2, { ...providers, MAX_CONCURRENT_REQUESTS: "1000" });

  test("exactly the dear reservations that fit are served, by the cheap model, and the books close", async () => {
    const { instances, books } = cluster();
    failing.behave({ status: 503 });
    const usd = (Number(HELD * 3n + HELD / 2n) / 1e9).toFixed(9);
    const { secret, account } = await fundedKey(books.store, usd);
    const burst = await heldBurst(answering, 20, (i) => postChat(instances.at(i).url, secret, body));
    expect(burst.forwarded).toBe(3);
    expect(burst.statuses.filter((s) => s !== 200).every((s) => s === 402)).toBe(true);
    expect(burst.bodies.filter((_, i) => burst.statuses[i] === 200).map((b) => JSON.parse(b).model)).toEqual([CHEAP.id, CHEAP.id, CHEAP.id]);
    const audit = await expectBooksClosed(books.store, account.id);
    expect(audit.usageCost).toBe(nanos(3n * CHARGED));
    expect(audit.balance).toBeGreaterThanOrEqual(0n);
  });
});
