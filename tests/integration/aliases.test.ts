// Model aliases: made and removed by the CLI and the console, listed in /v1/models, and usable
// by a client that names one model, falling back along the alias's models.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { runGateway, runGatewayJson } from "../support/binary.ts";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { signInOperator } from "../support/operator.ts";
import type { Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(30_000);

const answering = startFakeUpstream();
afterAll(() => answering.stop());

describeEachDialect("model aliases", (dialect) => {
  // OpenAI's provider refuses connections: an alias that starts there falls back.
  const gateway = useGateway(dialect, { ...providerEnv(answering), OPENAI_BASE_URL: "http://127.0.0.1:1/v1" });
  const env = () => ({ DATABASE_URL: gateway().config.databaseUrl });
  let operator: Browser;
  beforeAll(async () => {
    operator = await signInOperator(gateway().url, gateway().store);
  });

  const listed = async (secret?: string) => {
    const res = await fetch(`${gateway().url}/v1/models`, { headers: secret ? { authorization: `Bearer ${secret}` } : {} });
    return ((await readJson(res)).data as { id: string; owned_by: string }[]).filter((m) => m.owned_by === "gateway").map((m) => m.id);
  };
  /** The catalog cache reloads within seconds: an alias's change is waited for, not slept on. */
  const seen = (name: string, present: boolean) => waitFor(async () => (await listed()).includes(name) === present, `${name} to be ${present ? "listed" : "gone"}`, 8_000, 100);

  test("the CLI makes an alias that a request names like a model, falling back along its models", async () => {
    const made = await runGatewayJson(["models", "alias", "coder", "--to", "gpt-4.1, llama-4-scout"], env());
    expect(made).toEqual({ name: "coder", models: ["gpt-4.1", "llama-4-scout"] });
    expect(await runGatewayJson(["models", "aliases"], env())).toContainEqual({ name: "coder", models: ["gpt-4.1", "llama-4-scout"] });
    await seen("coder", true);
    const { secret, account } = await fundedKey(gateway().store, "1");
    const res = await fetch(`${gateway().url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model: "coder", messages: [{ role: "user", content: "hi" }] }),
    });
    expect({ status: res.status, header: res.headers.get("x-gateway-model"), model: (await readJson(res)).model }).toEqual({ status: 200, header: "llama-4-scout", model: "llama-4-scout" });
    const [log] = await gateway().store.usageLogPage(account.id, null, 1);
    expect([log?.model, log?.requestedModel]).toEqual(["llama-4-scout", "coder"]);
    expect(await runGateway(["models", "unalias", "coder"], env())).toMatchObject({ code: 0 });
    await seen("coder", false);
  });

  test.each([
    [["models", "alias", "gpt-4.1", "--to", "llama-4-scout"], "is a model's ID"],
    [["models", "alias", "Fast!", "--to", "llama-4-scout"], "lowercase letters"],
    [["models", "alias", "fast", "--to", "nope"], "`nope` is not a catalog model"],
    [["models", "alias", "fast", "--to", "a,b,c,d,e,f"], "1 to 5 models"],
    [["models", "unalias", "never-made"], 'no alias "never-made"'],
  ])("the CLI refuses `%j`", async (args, words) => {
    const run = await runGateway(args, env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(words);
  });

  test("the console makes, lists and removes an alias, audited", async () => {
    const saved = await operator.send("PUT", "/admin/aliases/cheap", { models: ["llama-4-scout", "gpt-4.1-nano"] });
    expect(await readJson(saved)).toEqual({ name: "cheap", models: ["llama-4-scout", "gpt-4.1-nano"] });
    expect((await readJson(await operator.send("GET", "/admin/models"))).aliases).toContainEqual({ name: "cheap", models: ["llama-4-scout", "gpt-4.1-nano"] });
    const bad = await operator.send("PUT", "/admin/aliases/cheap", { models: ["nope"] });
    expect({ status: bad.status, body: await readJson(bad) }).toEqual({ status: 400, body: { error: "`nope` is not a catalog model" } });
    await seen("cheap", true);
    expect((await operator.send("DELETE", "/admin/aliases/cheap")).status).toBe(200);
    expect((await operator.send("DELETE", "/admin/aliases/cheap")).status).toBe(404);
    const { events } = await readJson(await operator.send("GET", "/admin/audit"));
    expect(events.map((e: { detail: string }) => e.detail.split(" by ")[0])).toEqual(expect.arrayContaining(["alias cheap: llama-4-scout, gpt-4.1-nano", "alias cheap removed"]));
  });

  test("a key kept to some models sees the aliases it may use, and uses only its models through one", async () => {
    await gateway().store.saveAlias({ name: "mixed", models: ["gpt-5", "llama-4-scout"] }, Date.now());
    await gateway().store.saveAlias({ name: "openai-only", models: ["gpt-5"] }, Date.now());
    await seen("openai-only", true);
    const { secret, key } = await fundedKey(gateway().store, "1");
    await gateway().store.updateKey(key.accountId, key.id, { allowedModels: ["llama-4-scout"] });
    expect((await listed(secret)).sort()).toEqual(["mixed"]);
    const before = answering.received.length;
    const res = await fetch(`${gateway().url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model: "openai-only", messages: [{ role: "user", content: "hi" }] }),
    });
    expect({ status: res.status, message: (await readJson(res)).error.message }).toEqual({ status: 403, message: "This API key may not use the model `openai-only`" });
    expect(answering.received.length).toBe(before);
  });
});
