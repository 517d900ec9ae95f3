// The baseline: a minimal pass-through proxy written with Bun's fetch, forwarding each request
// to the upstream and relaying its response (streams included) unchanged.
// OPENAI_BASE_URL (as the gateway takes it) lets it stand in for the gateway in bench/slow-streams.ts.
const upstream = process.env.UPSTREAM_URL ?? process.env.OPENAI_BASE_URL;
if (!upstream) throw new Error("UPSTREAM_URL is required");

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    const url = new URL(request.url);
    const response = await fetch(`${upstream}${url.pathname.replace(/^\/v1/, "")}`, {
      method: request.method,
      headers: { "content-type": "application/json", authorization: "Bearer upstream-key" },
      body: await request.arrayBuffer(),
    });
    return new Response(response.body, { status: response.status, headers: { "content-type": response.headers.get("content-type") ?? "application/json" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
export {};
