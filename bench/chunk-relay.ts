// A minimal relay that sees every chunk in JavaScript, as any gateway that charges from a
// stream's last chunk must: Bun's fetch proxy whose response body is a ReadableStream that
// reads the provider's body chunk by chunk and enqueues each chunk unchanged. No parsing,
// billing, logging or timers. `bun bench/cell.ts sqlite slow-floor` runs the slow-stream
// cell against it.
// Takes the gateway's OPENAI_BASE_URL (and ignores `serve --port 0`), so that it can stand in
// for the gateway in bench/slow-streams.ts.
const upstream = process.env.OPENAI_BASE_URL;
if (!upstream) throw new Error("OPENAI_BASE_URL is required");

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(request) {
    const response = await fetch(`${upstream}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer upstream-key" },
      body: await request.arrayBuffer(),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: { "content-type": "text/event-stream" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
