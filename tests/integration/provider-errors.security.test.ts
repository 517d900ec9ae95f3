// A provider's error text may quote the key the gateway sent it (`Invalid header: Bearer
// sk-…`). Whatever door the request came in by (chat completions, the Responses API native and
// translated, the Messages API native and translated), streamed or not, before the answer or
// in an error event mid-stream, no configured provider key reaches the client's body, the
// usage log or any line of the gateway's log.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { rows } from "../../src/db/sql.ts";
import { createLogger } from "../../src/server/log.ts";
import { fundedKey } from "../support/accounts.ts";
import { postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { postMessages } from "../support/messages.ts";
import { postResponses } from "../support/responses.ts";
import { useGateway } from "../support/server.ts";

/** Two OpenAI keys (the list form) and DeepSeek's: every one of them is echoed by the provider below. */
const OPENAI_KEYS = ["sk-PROVIDERSECRET-openai", "second-openai-PROVIDERSECRET2"];
const DEEPSEEK_KEY = "ds.PROVIDERSECRET/deepseek";
const SECRETS = [...OPENAI_KEYS, DEEPSEEK_KEY, "PROVIDERSECRET"];

type Mode = "reject" | "fail" | "refuse" | "mid-stream";
let mode: Mode = "reject";
const STATUS: Record<Exclude<Mode, "mid-stream">, number> = { reject: 400, fail: 500, refuse: 401 };

const sse = (events: unknown[]) =>
  new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });

/** The first event of a stream on `path`, then an error event quoting `words`. */
function brokenStream(path: string, words: string): Response {
  if (path.endsWith("/messages")) {
    const message = { id: "msg_1", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 5, output_tokens: 0 } };
    return sse([{ type: "message_start", message }, { type: "error", error: { type: "api_error", message: words } }]);
  }
  if (path.endsWith("/responses")) {
    const response = { id: "resp_1", object: "response", status: "in_progress", output: [] };
    return sse([{ type: "response.created", response }, { type: "error", code: "server_error", message: words }]);
  }
  const chunk = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "Hi" }, finish_reason: null }] };
  return sse([chunk, { error: { message: words, type: "server_error" } }]);
}

/** A provider on every API that fails quoting the key it was sent, as header and bare. */
const provider = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = (await request.json()) as { stream?: boolean };
    const key = request.headers.get("x-api-key") ?? request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    const words = `Invalid request (Authorization: Bearer ${key}); the key ${key} is not allowed`;
    const path = new URL(request.url).pathname;
    if (mode === "mid-stream" && body.stream) return brokenStream(path, words);
    const status = mode === "mid-stream" ? 400 : STATUS[mode];
    const error = path.endsWith("/messages") ? { type: "error", error: { type: "invalid_request_error", message: words } } : { error: { message: words, type: "invalid_request_error" } };
    return Response.json(error, { status });
  },
});
afterAll(() => provider.stop(true));

const root = `http://127.0.0.1:${provider.port}`;
const env: Record<string, string> = {
  ...Object.fromEntries(["OPENAI", "DEEPSEEK", "MOONSHOT", "XAI", "META"].flatMap((p) => [[`${p}_BASE_URL`, `${root}/v1`], [`${p}_ANTHROPIC_BASE_URL`, ""]])),
  OPENAI_API_KEY: OPENAI_KEYS.join(","),
  DEEPSEEK_API_KEY: DEEPSEEK_KEY,
  // DeepSeek's Messages requests go to its Anthropic API (native); OpenAI's are translated.
  DEEPSEEK_ANTHROPIC_BASE_URL: root,
};

const question = { messages: [{ role: "user", content: "hello" }], max_tokens: 16 };
/** Each door and way through it: the request, as a function of the key and whether to stream. */
const DOORS: [string, (url: string, secret: string, stream: boolean) => Promise<Response>][] = [
  ["chat completions", (url, secret, stream) => postChat(url, secret, { model: "gpt-4.1-nano", ...question, stream })],
  ["responses, native (OpenAI)", (url, secret, stream) => postResponses(url, secret, { model: "gpt-4.1", input: "hello", stream })],
  ["responses, translated (DeepSeek)", (url, secret, stream) => postResponses(url, secret, { model: "deepseek-v3.2", input: "hello", stream })],
  ["messages, native (DeepSeek)", (url, secret, stream) => postMessages(url, secret, { model: "deepseek-v3.2", ...question, stream })],
  ["messages, translated (OpenAI)", (url, secret, stream) => postMessages(url, secret, { model: "gpt-4.1", ...question, stream })],
];

describeEachDialect("provider keys in provider error text", (dialect) => {
  const lines: string[] = [];
  const gateway = useGateway(dialect, env, createLogger({ write: (line) => lines.push(line) }));
  let secret: string;
  beforeEach(async () => {
    secret = (await fundedKey(gateway().store, "5")).secret;
  });

  const expectNoSecret = (text: string, where: string) => {
    for (const s of SECRETS) expect({ where, leaked: text.includes(s) }).toEqual({ where, leaked: false });
  };

  test.each(DOORS)("%s: a 400 keeps the provider's words without the key, streamed or not", async (_door, send) => {
    mode = "reject";
    for (const stream of [false, true]) {
      const res = await send(gateway().url, secret, stream);
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(text).toContain("is not allowed");
      expect(text).toContain("[redacted]");
      expectNoSecret(text, `stream: ${stream}`);
    }
  });

  test.each(DOORS)("%s: a 500, a 401 and an error event mid-stream carry no key", async (_door, send) => {
    for (const [failing, stream] of [["fail", false], ["refuse", true], ["mid-stream", true]] as const) {
      mode = failing;
      const res = await send(gateway().url, secret, stream);
      const text = await res.text();
      expect(failing === "mid-stream" ? text : String(res.status)).toMatch(failing === "mid-stream" ? /error/ : /^5\d\d$/);
      expectNoSecret(text, failing);
    }
  });

  test("no line of the gateway's log and no usage-log row holds a key", async () => {
    expect(lines.length).toBeGreaterThan(0);
    expectNoSecret(lines.join(""), "log");
    const errors = await gateway().db.run(rows<{ error: string | null }>("SELECT error FROM usage_logs"));
    expect(errors.length).toBeGreaterThan(0);
    expectNoSecret(JSON.stringify(errors), "usage_logs");
  });
});
