// The benchmark's provider: an OpenAI-compatible server answering as fast as it can with a
// fixed small completion, or an SSE stream of 20 content chunks, a finish chunk and usage.
// Everything it sends is built once, so that it costs as little as possible per request.

const usage = { prompt_tokens: 24, completion_tokens: 20, total_tokens: 44 };
const base = { id: "chatcmpl-bench", created: 1_700_000_000, model: "bench-model" };
const completion = JSON.stringify({
  ...base,
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "word ".repeat(20).trim() }, finish_reason: "stop" }],
  usage,
});
const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const stream = new TextEncoder().encode(
  [
    chunk({ role: "assistant", content: "" }, null),
    ...Array.from({ length: 20 }, () => chunk({ content: "word " }, null)),
    chunk({}, "stop"),
    `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`,
    "data: [DONE]\n\n",
  ].join(""),
);

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = await request.text();
    if (body.includes('"stream":true')) {
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    return new Response(completion, { headers: { "content-type": "application/json" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
export {};
