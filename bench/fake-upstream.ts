// The benchmark's provider: an OpenAI-compatible server answering as fast as it can with a
// fixed small completion, or an SSE stream of content chunks, a finish chunk and usage: 20
// content chunks, or 200 when the request asks for 320 tokens (the per-chunk cost is the
// difference). Everything it sends is built once, so that it costs as little as possible.
//
// With BENCH_CHUNK_INTERVAL_MS set, a stream's content chunks (BENCH_STREAM_CHUNKS of them,
// 100 by default) come that many milliseconds apart instead, as a model writes them: the
// slow-stream cell. One timer serves every open stream.

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
const encoder = new TextEncoder();
const first = chunk({ role: "assistant", content: "" }, null);
const content = chunk({ content: "word " }, null);
const end = [chunk({}, "stop"), `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`, "data: [DONE]\n\n"].join("");
const whole = (chunks: number) => encoder.encode([first, content.repeat(chunks), end].join(""));
const streams = { 20: whole(20), 200: whole(200) };

const interval = Number(process.env.BENCH_CHUNK_INTERVAL_MS ?? 0);
const slowChunks = Number(process.env.BENCH_STREAM_CHUNKS ?? 100);
const open = new Set<{ controller: ReadableStreamDefaultController<Uint8Array>; sent: number }>();
const [contentBytes, endBytes] = [encoder.encode(content), encoder.encode(end)];
if (interval > 0) {
  setInterval(() => {
    for (const stream of open) {
      try {
        if (++stream.sent <= slowChunks) stream.controller.enqueue(contentBytes);
        else {
          stream.controller.enqueue(endBytes);
          stream.controller.close();
          open.delete(stream);
        }
      } catch {
        open.delete(stream); // the client went away
      }
    }
  }, interval);
}

const slowStream = () =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
      open.add({ controller, sent: 0 });
    },
  });

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = await request.text();
    if (body.includes('"stream":true')) {
      const events = interval > 0 ? slowStream() : /"max_(completion_)?tokens":320\b/.test(body) ? streams[200] : streams[20];
      return new Response(events, { headers: { "content-type": "text/event-stream" } });
    }
    return new Response(completion, { headers: { "content-type": "application/json" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
export {};
