// A price set in the operator console is charged within 10 seconds by every instance sharing the
// database (each keeps the catalog in memory for at most 10 s), not only by the one that took the edit.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { expectBooksClosed } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { big, first } from "../../src/db/sql.ts";
import { useInstances } from "../support/instances.ts";
import { signInOperator } from "../support/operator.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(40_000);
const fake = startFakeUpstream();
afterAll(() => fake.stop());

const MODEL = "gpt-4.1-nano";
// The fake reports 11 prompt and 7 completion tokens: at $0.10 / $0.40 per million that is
// $0.0000039; at the console's $1 / $2 it is 11 + 14 = 25 millionths of a dollar.
const OLD_COST = 3_900n;
const NEW_COST = 25_000n;
/** The catalog's promise, and room for one polling round and the request that notices. */
const PROMISE_MS = 10_000;
const SLACK_MS = 1_500;

describeOnPostgres("a console price edit, with two instances on one database", () => {
  const cluster = useInstances("postgres", 2, providerEnv(fake));

  test("is charged by every instance within 10 seconds", async () => {
    const { instances, books } = cluster();
    // One account per instance, so that each account's newest usage log is that instance's last charge.
    const customers = await Promise.all(instances.all.map(() => fundedKey(books.store, "5")));
    const charged = async (i: number): Promise<bigint> => {
      const res = await postChat(instances.at(i).url, customers[i]!.secret, hello(MODEL));
      expect(res.status).toBe(200);
      await res.text();
      const last = await books.db.run(first(
        "SELECT cost_nanos FROM usage_logs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT 1", customers[i]!.account.id,
      ));
      return big(last?.cost_nanos);
    };
    // Each instance has the catalog in memory, at the old price.
    expect(await Promise.all(instances.all.map((_, i) => charged(i)))).toEqual([OLD_COST, OLD_COST]);

    const operator = await signInOperator(instances.at(0).url, books.store);
    const edited = await operator.send("PATCH", `/admin/models/${MODEL}`, { inputPerMillionUsd: "1", outputPerMillionUsd: "2" });
    expect(edited.status).toBe(200);
    const editedAt = Date.now();

    const switchedAfterMs: (number | null)[] = [null, null];
    await waitFor(async () => {
      await Promise.all(instances.all.map(async (_, i) => {
        if (switchedAfterMs[i] !== null) return;
        const startedAt = Date.now();
        const cost = await charged(i);
        // A request sent once the promise has run out must pay the new price.
        if (startedAt - editedAt > PROMISE_MS) expect({ instance: i, cost }).toEqual({ instance: i, cost: NEW_COST });
        if (cost === NEW_COST) switchedAfterMs[i] = Date.now() - editedAt;
        else expect(cost).toBe(OLD_COST);
      }));
      return switchedAfterMs.every((ms) => ms !== null);
    }, "every instance to charge the new price", PROMISE_MS + SLACK_MS, 100);
    for (const ms of switchedAfterMs) expect(ms!).toBeLessThanOrEqual(PROMISE_MS + SLACK_MS);

    // Nothing charged twice or lost on the way: the books close.
    for (const { account } of customers) await expectBooksClosed(books.store, account.id);
  });
});
