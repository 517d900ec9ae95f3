// Messages API bodies for the endpoint fuzzer: valid ones (Claude Code's extras included), valid
// ones with one field or one block's field replaced by anything, and records of anything; and
// the verdict on each. The fuzzer's provider speaks chat completions, so every model is
// translated here; the native path is in tests/integration/messages.*.test.ts.
import fc from "fast-check";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";
import { parseMessagesRequest } from "../../src/core/messages/request.ts";
import { modelsField, namesOnlyCatalogModels, withModelsOnly } from "./models-bodies.ts";

const MODEL_IDS = FALLBACK_CATALOG.map((m) => m.id);

const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 100 }) }),
  fc.record({ type: fc.constant("image"), source: fc.constant({ type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }) }),
  fc.record({ type: fc.constant("tool_use"), id: fc.constant("toolu_1"), name: fc.constant("f"), input: fc.constant({ a: 1 }) }),
  fc.record({ type: fc.constant("tool_result"), tool_use_id: fc.constant("toolu_1"), content: fc.string({ maxLength: 50 }) }),
  fc.record({ type: fc.constant("thinking"), thinking: fc.string({ maxLength: 50 }), signature: fc.constant("") }),
  fc.record({ type: fc.constant("a_block_from_next_year"), anything: fc.jsonValue({ maxDepth: 2 }) }),
);

const message = fc.record({
  role: fc.constantFrom("user", "assistant", "system"),
  content: fc.oneof(fc.string({ maxLength: 100 }), fc.array(block, { minLength: 1, maxLength: 3 })),
});

const validMessages = fc.record(
  {
    model: fc.oneof(fc.constantFrom(...MODEL_IDS), fc.constantFrom("claude-sonnet-4-5", "claude-opus-4-1")),
    max_tokens: fc.integer({ min: 1, max: 200_000 }),
    messages: fc.array(message, { minLength: 1, maxLength: 4 }),
    system: fc.oneof(fc.string({ maxLength: 100 }), fc.constant([{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }])),
    stream: fc.boolean(),
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    top_k: fc.nat({ max: 500 }),
    stop_sequences: fc.array(fc.string({ maxLength: 10 }), { maxLength: 6 }),
    tools: fc.constantFrom([{ name: "f", input_schema: { type: "object" } }], [{ type: "web_search_20250305", name: "web_search" }], [{ name: "g", input_schema: { type: "object" }, defer_loading: true }]),
    tool_choice: fc.constantFrom({ type: "auto" }, { type: "any" }, { type: "none" }, { type: "tool", name: "f" }),
    thinking: fc.constantFrom({ type: "enabled", budget_tokens: 1024 }, { type: "disabled" }, { type: "adaptive" }),
    output_config: fc.constantFrom({ effort: "high" }, { effort: "low" }),
    metadata: fc.record({ user_id: fc.string({ maxLength: 20 }) }),
    context_management: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ["model", "max_tokens", "messages"] },
);

const FIELDS = ["model", "models", "max_tokens", "messages", "system", "stream", "temperature", "top_p", "top_k", "stop_sequences", "tools", "tool_choice", "thinking", "metadata"];

export const messagesRequest = (anyJson: fc.Arbitrary<unknown>) =>
  fc.oneof(
    validMessages,
    fc.tuple(validMessages, modelsField(anyJson)).map(([body, models]) => ({ ...body, models })),
    fc.tuple(validMessages, modelsField(anyJson)).map(([body, models]) => withModelsOnly(body, models)),
    fc.tuple(validMessages, fc.constantFrom(...FIELDS), anyJson).map(([body, field, value]) => ({ ...body, [field]: value })),
    fc.tuple(validMessages, fc.constantFrom("type", "text", "source", "id", "name", "input", "tool_use_id", "thinking"), anyJson).map(([body, field, value]) => ({
      ...body,
      messages: [{ role: "user", content: [{ type: "text", text: "x", [field]: value }] }],
    })),
    fc.dictionary(fc.constantFrom(...FIELDS), anyJson, { maxKeys: 5 }),
  );

/** The gateway's verdict: forwarded (200), a `claude-*` model it does not serve (404), or a 400. */
export function messagesVerdict(wire: string): 200 | 400 | 404 {
  try {
    const request = parseMessagesRequest(JSON.parse(wire));
    if (namesOnlyCatalogModels(request)) return 200;
    // With fallbacks listed, an unknown name is a 400 naming `models`, Claude's or not.
    return request.model.startsWith("claude") && request.models === undefined ? 404 : 400;
  } catch {
    return 400;
  }
}
