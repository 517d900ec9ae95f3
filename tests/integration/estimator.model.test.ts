import { afterAll, beforeEach, expect, test } from "bun:test";
import { MESSAGES } from "../../src/core/errors.ts";
import { ESTIMATOR_MAX_OUTPUT_TOKENS } from "../../src/core/estimator/answer.ts";
import { describeEachDialect } from "../support/databases.ts";
import { answerText, ask, postEstimator } from "../support/estimator.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";

const MODEL_ANSWER = "Use llama-4-scout: about $41 a month; buy the Pro pack.";

type Behaviour = "answer" | "fail" | "not-json" | "no-content" | "hang";
let behaviour: Behaviour = "answer";
const received: { path: string; authorization: string | null; body: any }[] = [];
const hanging: (() => void)[] = [];

// A fake OpenAI-compatible provider, reached through OPENAI_BASE_URL.
const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    received.push({ path: new URL(request.url).pathname, authorization: request.headers.get("authorization"), body: await request.json() });
    switch (behaviour) {
      case "answer":
        return Response.json({
          id: "chatcmpl-1",
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: MODEL_ANSWER }, finish_reason: "stop" }],
          usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 },
        });
      case "fail":
        return Response.json({ error: { message: "overloaded" } }, { status: 500 });
      case "not-json":
        return new Response("<html>bad gateway</html>", { headers: { "content-type": "application/json" } });
      case "no-content":
        return Response.json({ choices: [] });
      case "hang":
        return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response("too late"))));
    }
  },
});
afterAll(async () => {
  for (const release of hanging) release();
  await upstream.stop(true);
});

const providerEnv = {
  TRUST_PROXY: "1",
  OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
  OPENAI_API_KEY: "sk-test-estimator",
};

beforeEach(() => {
  behaviour = "answer";
  received.length = 0;
});

describeEachDialect("POST /estimator with ESTIMATOR_MODEL", (dialect) => {
  const gateway = useGateway(dialect, { ...providerEnv, ESTIMATOR_MODEL: "gpt-5.4-mini" });

  test("answers with the model's text after one upstream call carrying the live catalog and packs", async () => {
    const question = ask("a cheap chatbot for 500 users");
    expect(await answerText(await postEstimator(gateway().url, question))).toBe(MODEL_ANSWER);

    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call?.path).toBe("/v1/chat/completions");
    expect(call?.authorization).toBe("Bearer sk-test-estimator");
    expect(call?.body.model).toBe("gpt-5.4-mini");
    expect(call?.body.max_completion_tokens).toBe(ESTIMATOR_MAX_OUTPUT_TOKENS);
    expect(call?.body.stream).toBeUndefined();
    const [system, ...rest] = call?.body.messages;
    expect(rest).toEqual(question.messages);
    expect(system.role).toBe("system");
    expect(system.content).toContain("- llama-4-scout (Llama 4 Scout; efficient; 512000 token context): input $0.1000, output $0.3500");
    expect(system.content).toContain("- pro (Pro): pay $50.00, get $60.00 in credits.");
    expect(system.content).toContain(`${gateway().config.publicUrl}/v1`);
  });

  test("the system prompt follows the live catalog: a disabled model is not offered", async () => {
    await gateway().store.updateModel("gpt-4o", { enabled: false });
    try {
      await answerText(await postEstimator(gateway().url, ask("a chatbot")));
      expect(received[0]?.body.messages[0].content).not.toContain("gpt-4o");
    } finally {
      await gateway().store.updateModel("gpt-4o", { enabled: true });
    }
  });

  test.each<[string, Behaviour]>([
    ["answers 500", "fail"],
    ["answers with a body that is not JSON", "not-json"],
    ["answers without message content", "no-content"],
  ])("falls back to the deterministic estimate when the provider %s", async (_, failure) => {
    behaviour = failure;
    const text = await answerText(await postEstimator(gateway().url, ask("a cheap chatbot for 500 users")));
    expect(received).toHaveLength(1);
    expect(text.split("\n").slice(0, 2)).toEqual([
      "Recommended model: llama-4-scout (Llama 4 Scout): High-volume low-cost chat.",
      "Requests per day: 5,000 (500 users × 10 requests each).",
    ]);
  });

  test("falls back without calling upstream when the estimator model is disabled", async () => {
    await gateway().store.updateModel("gpt-5.4-mini", { enabled: false });
    try {
      const text = await answerText(await postEstimator(gateway().url, ask("a cheap chatbot")));
      expect(text).toStartWith("Recommended model: llama-4-scout");
      expect(received).toEqual([]);
    } finally {
      await gateway().store.updateModel("gpt-5.4-mini", { enabled: true });
    }
  });
});

describeEachDialect("POST /estimator with an ESTIMATOR_MODEL not in the catalog", (dialect) => {
  const gateway = useGateway(dialect, { ...providerEnv, ESTIMATOR_MODEL: "no-such-model" });

  test("answers with the deterministic estimate and calls no provider", async () => {
    const text = await answerText(await postEstimator(gateway().url, ask("legal reasoning")));
    expect(text).toStartWith("Recommended model: gpt-5.5 (GPT-5.5)");
    expect(received).toEqual([]);
  });
});

describeEachDialect("POST /estimator when the estimator model is too slow", (dialect) => {
  const gateway = useGateway(dialect, { ...providerEnv, ESTIMATOR_MODEL: "gpt-5.4-mini", ESTIMATOR_TIMEOUT_MS: "50" });

  test("answers 504 Estimator timed out once ESTIMATOR_TIMEOUT_MS passes", async () => {
    behaviour = "hang";
    const res = await postEstimator(gateway().url, ask("a chatbot"));
    expect(res.status).toBe(504);
    expect(await readJson(res)).toEqual({ error: MESSAGES.estimatorTimedOut });
    expect(received).toHaveLength(1);
  });
});
