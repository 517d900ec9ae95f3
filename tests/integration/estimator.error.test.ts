import { expect, test } from "bun:test";
import { MESSAGES } from "../../src/core/errors.ts";
import { BODY_LIMIT_BYTES } from "../../src/server/body.ts";
import { describeEachDialect } from "../support/databases.ts";
import { answerText, ask, freshIp, postEstimator } from "../support/estimator.ts";
import { readJson } from "../support/http.ts";
import { startGateway, useGateway } from "../support/server.ts";

const user = (content: string) => ({ role: "user", content });

/** `messages` padded with JSON whitespace to exactly `bytes` bytes. */
function bodyOfSize(bytes: number): string {
  const json = JSON.stringify(ask("a support chatbot"));
  return json.slice(0, -1) + " ".repeat(bytes - json.length) + "}";
}

describeEachDialect("POST /estimator errors", (dialect) => {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1" });

  test.each([
    ["the body is not JSON", "messages: hi", MESSAGES.estimatorMessagesRequired],
    ["the body is empty", "", MESSAGES.estimatorMessagesRequired],
    ["the body is a JSON array", [user("hi")], MESSAGES.estimatorMessagesRequired],
    ["messages is missing", { prompt: "hi" }, MESSAGES.estimatorMessagesRequired],
    ["messages is not an array", { messages: "hi" }, MESSAGES.estimatorMessagesRequired],
    ["messages is empty", { messages: [] }, MESSAGES.estimatorMessagesRequired],
    ["there are more than 10 messages", { messages: Array.from({ length: 11 }, () => user("hi")) }, MESSAGES.estimatorTooLong],
    ["a message is not an object", { messages: [user("hi"), "hello"] }, MESSAGES.estimatorInvalidItem],
    ["a role is not user, assistant or system", { messages: [{ role: "tool", content: "hi" }] }, MESSAGES.estimatorInvalidRole],
    ["a role is missing", { messages: [{ content: "hi" }] }, MESSAGES.estimatorInvalidRole],
    ["a content is not a string", { messages: [{ role: "user", content: 42 }] }, MESSAGES.estimatorInvalidContent],
    ["a content exceeds 2,000 characters", { messages: [user("x".repeat(2_001))] }, MESSAGES.estimatorInvalidContent],
  ])("400 when %s", async (_, body, error) => {
    const res = await postEstimator(gateway().url, body);
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error });
  });

  test("a body of exactly 65,536 bytes is read; one byte more is 413", async () => {
    const exact = bodyOfSize(BODY_LIMIT_BYTES);
    expect(new TextEncoder().encode(exact).byteLength).toBe(BODY_LIMIT_BYTES);
    await answerText(await postEstimator(gateway().url, exact));

    const res = await postEstimator(gateway().url, bodyOfSize(BODY_LIMIT_BYTES + 1));
    expect(res.status).toBe(413);
    expect(await readJson(res)).toEqual({ error: `Request body exceeds ${BODY_LIMIT_BYTES} bytes` });
  });

  test("413 for an oversized body sent without Content-Length", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(16_384));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${gateway().url}/estimator`, {
      method: "POST",
      headers: { "x-forwarded-for": freshIp() },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect(await readJson(res)).toEqual({ error: `Request body exceeds ${BODY_LIMIT_BYTES} bytes` });
  });

  test.each(["GET", "PUT", "PATCH", "DELETE"])("%s answers 405 naming POST", async (method) => {
    const res = await fetch(`${gateway().url}/estimator`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(await readJson(res)).toEqual({ error: "Method not allowed. Use POST." });
  });
});

describeEachDialect("POST /estimator when the database is down", (dialect) => {
  test("answers 500 Internal server error: the per-IP limit cannot be checked, so nothing is answered", async () => {
    const gateway = await startGateway(dialect);
    await gateway.db.close();
    try {
      const res = await postEstimator(gateway.url, ask("a support chatbot"));
      expect(res.status).toBe(500);
      expect(await readJson(res)).toEqual({ error: MESSAGES.internal });
    } finally {
      await gateway.stop().catch(() => {});
    }
  });
});
