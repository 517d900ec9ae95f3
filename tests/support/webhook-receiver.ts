// A webhook receiver on loopback for the gateway's events, and the check a receiver makes of
// their signature.
import { createHmac } from "node:crypto";
import type { Server } from "bun";

export interface Received {
  signature: string;
  body: string;
  event: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

/** Records what it is sent, answers as told (a status, or never). */
export function startReceiver() {
  const received: Received[] = [];
  let answer: (event: Received) => number | "hang" = () => 200;
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      const body = await request.text();
      const got = { signature: request.headers.get("x-gateway-signature") ?? "", body, event: JSON.parse(body) };
      received.push(got);
      const status = answer(got);
      if (status === "hang") return new Promise<Response>(() => {});
      return new Response(status === 200 ? "ok" : "receiver is down", { status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks/gateway`,
    received,
    answerWith: (fn: typeof answer) => { answer = fn; },
    of: (type: string) => received.filter((r) => r.event.type === type),
    stop: () => server.stop(true),
  };
}

/** Verifies a signature as a receiver would: `t=…,v1=HMAC-SHA256(secret, "t.body")`. */
export function verified(secret: string, got: Received): boolean {
  const parts = Object.fromEntries(got.signature.split(",").map((p) => p.split("=") as [string, string]));
  const expected = createHmac("sha256", secret).update(`${parts.t}.${got.body}`).digest("hex");
  return parts.v1 === expected && Math.abs(Date.now() / 1000 - Number(parts.t)) < 300;
}
