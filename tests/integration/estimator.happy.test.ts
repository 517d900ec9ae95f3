import { expect, test } from "bun:test";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import { createApp } from "../../src/server/app.ts";
import { silentLogger } from "../../src/server/log.ts";
import { describeEachDialect } from "../support/databases.ts";
import { answerText, ask, freshIp, postEstimator } from "../support/estimator.ts";
import { useGateway } from "../support/server.ts";

const usd = (value: string) => parseUsd(value) as Nanos;
const line = (text: string, label: string) => text.split("\n").find((l) => l.startsWith(`${label}: `));

describeEachDialect("POST /estimator without an estimator model", (dialect) => {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1", PUBLIC_URL: "https://gateway.example", BASE_PATH: "/api" });

  test("answers the spec's choices[0].message with every part of the estimate", async () => {
    const res = await postEstimator(gateway().url, ask("A cheap chatbot for 500 users"));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await answerText(res)).split("\n")).toEqual([
      "Recommended model: llama-4-scout (Llama 4 Scout): High-volume low-cost chat.",
      "Requests per day: 5,000 (500 users × 10 requests each).",
      "Tokens per request: about 1,000 input and 500 output.",
      "Monthly cost: $41.25 (30 days × 5,000 requests × $0.000275 per request, at $0.10 input and $0.35 output per 1M tokens).",
      "Recommended credit pack: Pro (pay $50.00, get $60.00 in credits), which covers a month of this usage.",
      'Integration: point any OpenAI SDK at https://gateway.example/api/v1 with a gateway API key (it starts with gw-) and set model to "llama-4-scout".',
      "This is an estimate, not a billing record: each request is charged for the tokens its provider reports.",
    ]);
  });

  test.each([
    ["no strong hint", "a support chatbot", "Recommended model", "gpt-5.4-mini (GPT-5.4 mini): Balanced production work."],
    ["cheap", "the cheapest option please", "Recommended model", "llama-4-scout (Llama 4 Scout): High-volume low-cost chat."],
    ["high volume", "high volume FAQ answers", "Recommended model", "llama-4-scout (Llama 4 Scout): High-volume low-cost chat."],
    ["reason", "legal reasoning", "Recommended model", "gpt-5.5 (GPT-5.5): High-quality reasoning, general production and code review."],
    ["complex", "complex planning agents", "Recommended model", "gpt-5.5 (GPT-5.5): High-quality reasoning, general production and code review."],
    ["code", "code review", "Tokens per request", "about 3,000 input and 1,500 output."],
    ["document", "summarise documents", "Tokens per request", "about 8,000 input and 500 output."],
    ["analysis", "churn analysis", "Tokens per request", "about 8,000 input and 500 output."],
    ["extraction", "invoice extraction", "Tokens per request", "about 1,000 input and 200 output."],
    ["users", "2k users", "Requests per day", "20,000 (2,000 users × 10 requests each)."],
    ["requests", "10k requests per day", "Requests per day", "10,000 (from the volume you described)."],
    ["messages", "2,000 messages", "Requests per day", "2,000 (from the volume you described)."],
    ["chats", "300 chats an hour", "Requests per day", "7,200 (from the volume you described)."],
    ["calls", "1.5M calls a month", "Requests per day", "50,000 (from the volume you described)."],
  ])("the %s hint shapes the answer", async (_, content, label, expected) => {
    const text = await answerText(await postEstimator(gateway().url, ask(content)));
    expect(line(text, label)).toBe(`${label}: ${expected}`);
  });

  test("prices from the live catalog: an operator's price change shows in the next answer", async () => {
    const { store, url } = gateway();
    await store.updateModel("gpt-5.4-mini", { inputPerMTok: usd("0.50"), outputPerMTok: usd("2.00") });
    try {
      const text = await answerText(await postEstimator(url, ask("a support chatbot")));
      // 1,000 × $0.50/1M + 500 × $2.00/1M = $0.0015 a request; × 1,000 a day × 30 days.
      expect(line(text, "Monthly cost")).toBe(
        "Monthly cost: $45.00 (30 days × 1,000 requests × $0.0015 per request, at $0.50 input and $2.00 output per 1M tokens).",
      );
    } finally {
      await store.updateModel("gpt-5.4-mini", { inputPerMTok: usd("0.40"), outputPerMTok: usd("1.60") });
    }
  });

  test("recommends a stand-in, and says so, when the hinted model is disabled", async () => {
    const { store, url } = gateway();
    await store.updateModel("llama-4-scout", { enabled: false });
    try {
      const text = await answerText(await postEstimator(url, ask("cheap bot")));
      expect(line(text, "Recommended model")).toBe(
        "Recommended model: gpt-5.4-nano (GPT-5.4 nano): Simple high-volume tasks " +
          "(llama-4-scout would fit best but is not available on this gateway right now).",
      );
    } finally {
      await store.updateModel("llama-4-scout", { enabled: true });
    }
  });

  test("prices from the fallback registry when the catalog cannot be read", async () => {
    const { config, store } = gateway();
    const failing = { ...store, listModels: () => Promise.reject(new Error("catalog unreachable")) };
    await store.updateModel("gpt-5.4-mini", { inputPerMTok: usd("9"), outputPerMTok: usd("9") });
    try {
      const app = createApp({ config, store: failing, log: silentLogger, now: Date.now });
      const res = await app.handle(
        new Request("http://gateway.test/api/estimator", {
          method: "POST",
          headers: { "x-forwarded-for": freshIp() },
          body: JSON.stringify(ask("a support chatbot")),
        }),
      );
      // The registry's $0.40/$1.60, not the database's $9/$9.
      expect(line(await answerText(res), "Monthly cost")).toBe(
        "Monthly cost: $36.00 (30 days × 1,000 requests × $0.0012 per request, at $0.40 input and $1.60 output per 1M tokens).",
      );
    } finally {
      await store.updateModel("gpt-5.4-mini", { inputPerMTok: usd("0.40"), outputPerMTok: usd("1.60") });
    }
  });

  test("takes hints from the user's turns of a conversation, not from earlier answers", async () => {
    const text = await answerText(
      await postEstimator(gateway().url, {
        messages: [
          { role: "system", content: "You are a pricing helper." },
          { role: "user", content: "We run a support bot." },
          { role: "assistant", content: "Recommended model: gpt-5.5 for complex reasoning, 90,000 requests per day." },
          { role: "user", content: "It gets 4,000 chats a day." },
        ],
      }),
    );
    expect(line(text, "Recommended model")).toBe("Recommended model: gpt-5.4-mini (GPT-5.4 mini): Balanced production work.");
    expect(line(text, "Requests per day")).toBe("Requests per day: 4,000 (from the volume you described).");
  });
});
