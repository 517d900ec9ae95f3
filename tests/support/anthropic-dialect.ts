// Anthropic's Messages API as a provider with an Anthropic-compatible endpoint answers it
// (DeepSeek: https://api-docs.deepseek.com/guides/anthropic_api, whose answers follow Anthropic's
// https://docs.claude.com/en/api/messages and streams
// https://docs.claude.com/en/docs/build-with-claude/streaming; transcripts in
// tests/fixtures/anthropic/): a Message, or its events, each `event: <type>` and `data: {type, ...}`.
import type { Script } from "./fake-responses.ts";

type Fields = Record<string, unknown>;

/**
 * Anthropic's usage: `input_tokens` without the cache's reads and writes. The script's `input`
 * is every prompt token, as in chat; `cached` of them were read, `cacheWrites` written.
 */
export function anthropicUsage(u: Script["usage"]): Fields {
  const written = u.cacheWrites ?? 0;
  const read = u.cached ?? 0;
  return { input_tokens: u.input - read - written, cache_creation_input_tokens: written, cache_read_input_tokens: read, output_tokens: u.output };
}

function contentOf(s: Script): Fields[] {
  const blocks: Fields[] = [];
  if (s.reasoning) blocks.push({ type: "thinking", thinking: s.reasoning, signature: "sig-fake" });
  if (s.text) blocks.push({ type: "text", text: s.text });
  if (s.call) blocks.push({ type: "tool_use", id: s.call.call_id, name: s.call.name, input: JSON.parse(s.call.arguments) });
  return blocks;
}

export function anthropicMessage(s: Script, body: Fields): Fields {
  return {
    id: "msg_fake", type: "message", role: "assistant", content: contentOf(s), model: body.model,
    stop_reason: s.call ? "tool_use" : "end_turn", stop_sequence: null, usage: anthropicUsage(s.usage),
  };
}

/** The documented event sequence: message_start with the input's usage, blocks, message_delta with the output's, message_stop. */
export function anthropicEvents(s: Script, body: Fields): string[] {
  const usage = anthropicUsage(s.usage);
  const events: Fields[] = [
    { type: "message_start", message: { ...anthropicMessage(s, body), content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } },
    { type: "ping" },
  ];
  contentOf(s).forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      String(block.text).split(" ").forEach((word, i) => events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: i ? ` ${word}` : word } }));
    } else if (block.type === "thinking") {
      events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
      events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.thinking } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } });
    } else {
      events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } });
      events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json } });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason: s.call ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: s.usage.output } });
  events.push({ type: "message_stop" });
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
}
