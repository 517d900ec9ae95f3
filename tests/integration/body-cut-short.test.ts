// A client that closes its connection while sending its body (a Content-Length larger than what
// it sent) left of its own accord, as one that leaves mid-stream does: the request line says so
// at info, no line is an error, nothing reaches the provider and nothing is reserved or charged.
import { afterAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { rows } from "../../src/db/sql.ts";
import { createLogger } from "../../src/server/log.ts";
import { fundedKey } from "../support/accounts.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());

const question = { messages: [{ role: "user", content: "hello, this body will not arrive whole" }], max_tokens: 16 };
const DOORS: [string, Record<string, unknown>, (secret: string) => string][] = [
  ["/v1/chat/completions", { model: "gpt-4.1-nano", ...question }, (secret) => `Authorization: Bearer ${secret}`],
  ["/v1/responses", { model: "gpt-4.1-nano", input: "hello" }, (secret) => `Authorization: Bearer ${secret}`],
  ["/v1/messages", { model: "gpt-4.1-nano", ...question }, (secret) => `x-api-key: ${secret}\r\nanthropic-version: 2023-06-01`],
];

/** Sends the headers and the first half of `body`, announcing it whole, then closes the connection. */
function sendHalfAndLeave(url: string, path: string, auth: string, body: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const head = `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
      socket.write(head + body.slice(0, Math.floor(body.length / 2)), () => socket.destroy());
    });
    socket.on("close", () => resolve());
    socket.on("error", reject);
  });
}

describeEachDialect("a request body cut short by the client", (dialect) => {
  const lines: string[] = [];
  const gateway = useGateway(dialect, providerEnv(fake), createLogger({ write: (line) => lines.push(line) }));
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  test.each(DOORS)("%s: logged as the client's leaving, not an error; nothing forwarded, reserved or charged", async (path, body, auth) => {
    const { secret, account } = await fundedKey(gateway().store, "5");
    const forwardedBefore = fake.received.length;
    const seenBefore = lines.length;
    await sendHalfAndLeave(gateway().url, path, auth(secret), JSON.stringify(body));

    let line: Record<string, unknown> | undefined;
    await waitFor(() => {
      line = entries().slice(seenBefore).find((e) => e.message === "request" && e.route === path);
      return line !== undefined;
    }, `the request line of ${path}`);
    expect(line).toMatchObject({ level: "info", clientDisconnected: true, status: 400 });
    expect(entries().slice(seenBefore).filter((e) => e.level !== "info")).toEqual([]);

    expect(fake.received.length).toBe(forwardedBefore);
    const after = (await gateway().store.findAccountByEmail(account.email))!;
    expect([after.balance, after.reserved, after.inflight]).toEqual([account.balance, 0n as never, 0]);
    const logged = await gateway().db.run(rows<{ n: number }>("SELECT COUNT(*) AS n FROM usage_logs WHERE account_id = ?", account.id));
    expect(Number(logged[0]!.n)).toBe(0);
  });
});
