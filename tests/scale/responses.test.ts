// Stored responses across instances: the state lives in the database, so a conversation begun
// on one `gateway serve` goes on through any other, as a load balancer spreads its turns.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeOnPostgres } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { useInstances } from "../support/instances.ts";
import { client, costOf, NATIVE, responsesEnv, TRANSLATED } from "../support/responses.ts";

setDefaultTimeout(20_000);
const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

describeOnPostgres("stored responses on two instances of one database", () => {
  const cluster = useInstances("postgres", 2, responsesEnv(fake));

  test.each([NATIVE, TRANSLATED])("%s: each turn through the other instance continues the conversation, each charged exactly", async (model) => {
    const { instances, books } = cluster();
    const { secret, account } = await fundedKey(books.store, "5");
    let previous: string | undefined;
    const said: string[] = [];
    for (let turn = 0; turn < 4; turn++) {
      fake.script({ text: `answer ${turn}`, usage: { input: 10 + turn, output: 2 } });
      const response = await client(instances.at(turn).url, secret).responses.create({ model, input: `question ${turn}`, ...(previous ? { previous_response_id: previous } : {}) });
      expect(response.output_text).toBe(`answer ${turn}`);
      said.push(`question ${turn}`, `answer ${turn}`);
      previous = response.id;
    }
    const sent = JSON.stringify(fake.received.at(-1)!.body);
    for (const text of said.slice(0, -1)) expect(sent).toContain(text);
    const logged = await books.store.usageLogPage(account.id, null, 10);
    expect(logged.map((row) => row.cost)).toEqual([13, 12, 11, 10].map((input) => costOf(model, input, 2)) as never);
  });
});
