import { afterAll, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { ask, postEstimator } from "../support/estimator.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { useGateway } from "../support/server.ts";
import { signUpUser } from "../support/session.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachDialect("x-request-id", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));

  test("every kind of response carries a new UUID, a different one each time", async () => {
    const url = gateway().url;
    const { secret } = await fundedKey(gateway().store, "5");
    const user = await signUpUser(url);
    fake.behave({});
    const responses: [string, Response][] = [
      ["chat 200", await postChat(url, secret, hello())],
      ["chat stream", await postChat(url, secret, hello("gpt-4.1-nano", { stream: true }))],
      ["chat 401", await postChat(url, null, hello())],
      ["chat 405", await fetch(`${url}/v1/chat/completions`)],
      ["health", await fetch(`${url}/health`)],
      ["models", await fetch(`${url}/models`)],
      ["estimator", await postEstimator(url, ask("a chatbot"))],
      ["account 200", await user.send("GET", "/account")],
      ["account 401", await fetch(`${url}/account`)],
      ["keys 200", await user.send("POST", "/keys/generate", {})],
      ["metrics", await fetch(`${url}/metrics`)],
      ["404", await fetch(`${url}/no/such/path`)],
    ];
    const ids = responses.map(([what, res]) => [what, res.headers.get("x-request-id")] as const);
    for (const [what, id] of ids) expect({ what, matches: UUID.test(id ?? "") }).toEqual({ what, matches: true });
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
    await Promise.all(responses.map(([, res]) => res.body?.cancel()));
  });

  test.each(["trace-1", "a.b_c:d-e", "0192f1f0-8c6e-7bbb-9e1f-5bd2c4a70a11", "x".repeat(128)])(
    "keeps a well-formed incoming ID: %s",
    async (incoming) => {
      const res = await fetch(`${gateway().url}/health`, { headers: { "x-request-id": incoming } });
      expect(res.headers.get("x-request-id")).toBe(incoming);
      const chat = await postChat(gateway().url, null, hello(), { "x-request-id": incoming });
      expect(chat.headers.get("x-request-id")).toBe(incoming);
    },
  );

  test.each([
    ["longer than 128 characters", "x".repeat(129)],
    ["with a space", "two words"],
    ["with a quote", 'say"hi'],
    ["with a slash", "a/b"],
    ["with markup", "<script>"],
    ["not ASCII", "café"],
    ["empty", ""],
  ])("replaces an incoming ID %s with a new UUID", async (_what, incoming) => {
    const res = await fetch(`${gateway().url}/health`, { headers: { "x-request-id": incoming } });
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });
});
