// A translated model's thinking on POST /v1/messages, through the real @anthropic-ai/sdk: each
// thinking block the gateway writes carries a sealed signature (streamed as signature_delta),
// and a tool loop on a DeepSeek thinking model goes on because the block sent back restores the
// turn's reasoning_content (the fake answers DeepSeek's 400 without it). A block whose signature
// the gateway did not make restores nothing.
import { afterAll, beforeEach, expect, test } from "bun:test";
import type { MessageParam, MessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeResponsesProvider } from "../support/fake-responses.ts";
import { anthropic, postMessages } from "../support/messages.ts";
import { costOf, responsesEnv } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

const THINKING = "deepseek-v4-pro";
const tools = [{ name: "Bash", description: "Run a command", input_schema: { type: "object" as const, properties: { command: { type: "string" } }, required: ["command"] } }];

describeEachDialect("Messages: a translated model's thinking comes back", (dialect) => {
  // Every provider's Anthropic API unset: DeepSeek's models are translated to chat completions.
  const gateway = useGateway(dialect, { ...responsesEnv(fake), SECRET_KEY: "5a".repeat(32) });
  beforeEach(() => fake.thinking([THINKING]));

  test.each([false, true])("a tool loop on a thinking model (streamed: %p), charged exactly", async (streamed) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const client = anthropic(gateway().url, secret);
    fake.script({ reasoning: "I need the listing.", call: { call_id: "toolu_1", name: "Bash", arguments: '{"command":"ls"}' }, usage: { input: 500, output: 40 } });
    const ask: MessageParam[] = [{ role: "user", content: "what is here?" }];
    const body = { model: THINKING, max_tokens: 1_024, tools, messages: ask };
    const signatures: string[] = [];
    let first;
    if (streamed) {
      const stream = client.messages.stream(body);
      stream.on("streamEvent", (event: MessageStreamEvent) => {
        if (event.type === "content_block_delta" && event.delta.type === "signature_delta") signatures.push(event.delta.signature);
      });
      first = await stream.finalMessage();
    } else first = await client.messages.create(body);
    const [thinking, toolUse] = first.content;
    expect(thinking).toMatchObject({ type: "thinking", thinking: "I need the listing." });
    expect((thinking as { signature: string }).signature).toStartWith("gwr1.");
    if (streamed) expect(signatures).toEqual([(thinking as { signature: string }).signature]);
    expect(toolUse).toMatchObject({ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } });

    fake.script({ text: "Two files.", usage: { input: 560, output: 4 } });
    const loop: MessageParam[] = [...ask, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a b" }] }];
    const second = await client.messages.create({ ...body, messages: loop, stream: false });
    expect(second.content).toEqual([{ type: "text", text: "Two files." }] as never);
    expect((fake.received.at(-1)!.body.messages as unknown[])[1]).toEqual({
      role: "assistant", content: null, reasoning_content: "I need the listing.", tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }],
    });
    const rows = await gateway().store.usageLogPage(account.id, null, 10);
    expect(rows.map((r) => r.cost).sort()).toEqual([costOf(THINKING, 500, 40), costOf(THINKING, 560, 4)].sort() as never);
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.balance, after.reserved, after.inflight]).toEqual([5_000_000_000n - costOf(THINKING, 500, 40) - costOf(THINKING, 560, 4), 0n, 0] as never);
  });

  test("a thinking block with a signature the gateway did not make restores nothing: DeepSeek's 400, nothing charged", async () => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    for (const signature of ["", "EqQBCkYIBxgCKkDnative-anthropic-signature", "gwr1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const messages = [
        { role: "user", content: "ls" },
        { role: "assistant", content: [{ type: "thinking", thinking: "planted words", signature }, { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "ls" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "a" }] },
      ];
      const answer = await postMessages(gateway().url, secret, { model: THINKING, max_tokens: 64, tools, messages });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(JSON.stringify(fake.received.at(-1)!.body)).not.toContain("planted words");
    }
    const after = (await gateway().store.getAccount(account.id))!;
    expect([after.balance, after.reserved, after.inflight]).toEqual([5_000_000_000n, 0n, 0] as never);
  });
});
