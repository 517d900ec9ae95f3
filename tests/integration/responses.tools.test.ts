// Tools of every type on POST /v1/responses, and a translated model's reasoning brought back: a
// Codex-shaped request (tests/fixtures/codex: function tools, a freeform `custom` tool with a
// grammar, a `namespace`, `web_search`) on a DeepSeek thinking model (translated, the fake
// answering DeepSeek's 400 when a tool-call turn's reasoning_content is missing) and on OpenAI
// (native), streamed and not, each step charged exactly the provider's usage.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { costOf, postResponses, responsesEnv } from "../support/responses.ts";
import { useGateway, type TestGateway } from "../support/server.ts";

type Fields = Record<string, any>;

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

const THINKING = "deepseek-v4-pro";
const NATIVE = "gpt-5.5";
const SECRET_KEY = "7f".repeat(32);

const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n";
const TOOLS = [
  { type: "function", name: "exec_command", strict: false, parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] } },
  { type: "custom", name: "apply_patch", description: "Edit files.", format: { type: "grammar", syntax: "lark", definition: "start: begin_patch hunk+ end_patch" } },
  { type: "namespace", name: "multi_agent_v1", description: "Sub-agents.", tools: [{ type: "function", name: "spawn_agent", strict: false, parameters: { type: "object", properties: {} } }] },
  { type: "web_search", external_web_access: false },
];
const codexBody = (model: string, input: Fields[], stream: boolean) => ({
  model, input, tools: TOOLS, tool_choice: "auto", parallel_tool_calls: true, reasoning: { summary: "auto" }, store: false, stream,
  include: ["reasoning.encrypted_content"], prompt_cache_key: "0b3f-session", client_metadata: { session_id: "0b3f-session" },
});
const sentMessages = (): Fields[] => fake.received.at(-1)!.body.messages as Fields[];
const user = (text: string) => ({ type: "message", id: `msg_${text.length}`, role: "user", content: [{ type: "input_text", text }] });

/** The Response of a request, streamed or not: a stream's `response.completed`, with every event seen. */
async function responseOf(answer: Response): Promise<{ response: Fields; events: Fields[] }> {
  if (!answer.headers.get("content-type")?.includes("event-stream")) return { response: await answer.json(), events: [] };
  const events = (await answer.text()).split("\n\n").filter((e) => e.startsWith("event: ")).map((e) => JSON.parse(e.split("\n")[1]!.slice("data: ".length)));
  return { response: events.find((e) => e.type === "response.completed")!.response, events };
}

async function expectSettled(gateway: TestGateway, accountId: string, charges: bigint[]) {
  const rows = await gateway.store.usageLogPage(accountId, null, 100);
  // Failed requests are logged at no cost.
  expect(rows.filter((r) => r.status === "success").map((r) => r.cost).sort()).toEqual([...charges].sort() as never);
  expect(rows.filter((r) => r.status !== "success").map((r) => r.cost)).toEqual(rows.filter((r) => r.status !== "success").map(() => 0n) as never);
  const account = (await gateway.store.getAccount(accountId))!;
  expect([account.balance, account.reserved, account.inflight]).toEqual([5_000_000_000n - charges.reduce((a, b) => a + b, 0n), 0n, 0] as never);
}

describeEachDialect("Responses: tools of every type and reasoning that comes back", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), SECRET_KEY });
  beforeEach(() => fake.thinking([THINKING]));

  test.each([false, true])("translated thinking model (stream: %p): a custom tool's call, then the loop goes on with its reasoning restored", async (stream) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    fake.script({ reasoning: "The file needs a patch.", call: { call_id: "call_1", name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) }, usage: { input: 900, output: 60 } });
    const first = await postResponses(gateway().url, secret, codexBody(THINKING, [user("add hello.txt")], stream));
    expect(first.status).toBe(200);
    // DeepSeek's documents name neither prompt_cache_key nor parallel_tool_calls (Codex sends both).
    expect(first.headers.get("x-gateway-dropped-params")).toBe("tools.web_search,prompt_cache_key,parallel_tool_calls");
    const sent = fake.received.at(-1)!.body;
    expect(sent.tools).toEqual([
      { type: "function", function: { name: "exec_command", strict: false, parameters: TOOLS[0]!.parameters } },
      { type: "function", function: { name: "apply_patch", description: "Edit files.\n\nThe input must follow this lark grammar:\nstart: begin_patch hunk+ end_patch", parameters: { type: "object", properties: { input: { type: "string", description: "The tool's input, as freeform text" } }, required: ["input"] } } },
      { type: "function", function: { name: "multi_agent_v1__spawn_agent", strict: false, parameters: { type: "object", properties: {} } } },
    ]);
    const { response, events } = await responseOf(first);
    const [reasoning, call] = response.output as Fields[];
    expect(reasoning).toMatchObject({ type: "reasoning", content: [{ type: "reasoning_text", text: "The file needs a patch." }] });
    expect(reasoning!.encrypted_content).toStartWith("gwr1.");
    expect(JSON.stringify(reasoning!.encrypted_content)).not.toContain("patch");
    expect(call).toMatchObject({ type: "custom_tool_call", call_id: "call_1", name: "apply_patch", input: PATCH });
    if (stream) expect(events.filter((e) => e.type.startsWith("response.custom_tool_call_input")).map((e) => [e.type, e.delta ?? e.input])).toEqual([["response.custom_tool_call_input.delta", PATCH], ["response.custom_tool_call_input.done", PATCH]]);

    // Codex sends everything back, its reasoning item as it got it, with the tool's output.
    fake.script({ text: "Done.", usage: { input: 1_000, output: 2 } });
    const again = codexBody(THINKING, [user("add hello.txt"), { ...reasoning, content: null }, call!, { type: "custom_tool_call_output", id: "fco_1", call_id: "call_1", output: "Success." }], stream);
    const second = await postResponses(gateway().url, secret, again);
    expect(second.status).toBe(200);
    expect((await responseOf(second)).response.output.at(-1)).toMatchObject({ type: "message", content: [{ type: "output_text", text: "Done." }] });
    expect(sentMessages().slice(-2)).toEqual([
      { role: "assistant", content: null, reasoning_content: "The file needs a patch.", tool_calls: [{ id: "call_1", type: "function", function: { name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) } }] },
      { role: "tool", tool_call_id: "call_1", content: "Success." },
    ]);
    await expectSettled(gateway(), account.id, [costOf(THINKING, 900, 60), costOf(THINKING, 1_000, 2)]);
  });

  test("a namespaced function's call comes back with its own name and its namespace, and goes out joined again", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    fake.script({ reasoning: "Spawn one.", call: { call_id: "call_2", name: "multi_agent_v1__spawn_agent", arguments: "{}" }, usage: { input: 50, output: 5 } });
    const { response } = await responseOf(await postResponses(gateway().url, secret, codexBody(THINKING, [user("go")], false)));
    expect(response.output[1]).toMatchObject({ type: "function_call", call_id: "call_2", namespace: "multi_agent_v1", name: "spawn_agent", arguments: "{}" });
    fake.script({ text: "ok", usage: { input: 60, output: 1 } });
    const back = [user("go"), ...response.output, { type: "function_call_output", call_id: "call_2", output: "spawned" }];
    expect((await postResponses(gateway().url, secret, codexBody(THINKING, back, false))).status).toBe(200);
    expect(sentMessages()[1]!.tool_calls[0].function.name).toBe("multi_agent_v1__spawn_agent");
  });

  test("a forged or foreign seal is not restored: DeepSeek's own 400 reaches the client, and nothing is charged", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const call = { type: "function_call", call_id: "call_3", name: "exec_command", arguments: '{"cmd":"ls"}' };
    for (const encrypted of ["gwr1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "gAAAAA-openai-encrypted", "not a seal"]) {
      const input = [user("ls"), { type: "reasoning", id: "rs_x", summary: [], content: [{ type: "reasoning_text", text: "forged words" }], encrypted_content: encrypted }, call, { type: "function_call_output", call_id: "call_3", output: "a b" }];
      const answer = await postResponses(gateway().url, secret, codexBody(THINKING, input, false));
      expect(answer.status).toBe(400);
      expect(JSON.stringify(fake.received.at(-1)!.body)).not.toContain("forged words");
    }
    await expectSettled(gateway(), account.id, []);
  });

  test("a stored chain (previous_response_id) restores the reasoning of its tool-call turn", async () => {
    const { secret } = await fundedKey(gateway().store, "5");
    fake.script({ reasoning: "List first.", call: { call_id: "call_4", name: "exec_command", arguments: '{"cmd":"ls"}' }, usage: { input: 30, output: 3 } });
    const first = await (await postResponses(gateway().url, secret, { model: THINKING, input: "what is here?", tools: TOOLS.slice(0, 1) })).json();
    expect(first.output[0].encrypted_content).toBeUndefined();
    fake.script({ text: "Two files.", usage: { input: 40, output: 3 } });
    const second = await postResponses(gateway().url, secret, { model: THINKING, previous_response_id: first.id, tools: TOOLS.slice(0, 1), input: [{ type: "function_call_output", call_id: "call_4", output: "a b" }] });
    expect(second.status).toBe(200);
    expect(sentMessages()[1]).toMatchObject({ role: "assistant", reasoning_content: "List first." });
  });

  test("native: every client-run tool forwarded as sent, web_search left out and named, a gateway seal never sent upstream", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    fake.script({ custom: { call_id: "call_5", name: "apply_patch", input: PATCH }, usage: { input: 700, output: 40 } });
    const tools = [...TOOLS, { type: "tool_search", execution: "client", parameters: { type: "object", properties: {} } }];
    const input = [user("patch it"), { type: "reasoning", id: "rs_g", summary: [], encrypted_content: "gwr1.from-a-translated-turn" }];
    const answer = await postResponses(gateway().url, secret, { ...codexBody(NATIVE, input, true), tools });
    expect(answer.headers.get("x-gateway-dropped-params")).toBe("tools.web_search");
    const { response } = await responseOf(answer);
    expect(response.output[0]).toMatchObject({ type: "custom_tool_call", call_id: "call_5", name: "apply_patch", input: PATCH });
    const sent = fake.received.at(-1)!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.body.tools).toEqual([TOOLS[0], TOOLS[1], TOOLS[2], tools[4]]);
    expect(sent.body.input).toEqual([user("patch it")]);
    await expectSettled(gateway(), account.id, [costOf(NATIVE, 700, 40)]);
  });

  test("a WebSocket upgrade of GET /v1/responses is refused with 426, which Codex falls back to HTTP from", async () => {
    const answer = await fetch(`${gateway().url}/v1/responses`, { headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } });
    expect(answer.status).toBe(426);
    expect((await answer.json()).error).toMatchObject({ type: "invalid_request_error", message: expect.stringContaining("POST /v1/responses") });
    expect((await fetch(`${gateway().url}/v1/responses`)).status).toBe(405);
  });
});
