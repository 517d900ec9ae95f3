import { expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { answerText, ask, postEstimator } from "../support/estimator.ts";
import { useGateway } from "../support/server.ts";

const line = (text: string, label: string) => text.split("\n").find((l) => l.startsWith(`${label}: `));

// The deterministic estimate's volume, end to end, for the phrasings a new user reported it misread.
describeEachDialect("POST /estimator reads volume as a customer states it", (dialect) => {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1" });

  test("conversations × messages: 12,000 requests a day, priced and packed from that", async () => {
    const text = await answerText(await postEstimator(gateway().url, ask(
      "2,000 conversations a day, each around 6 messages of 150 words",
    )));
    expect(line(text, "Requests per day")).toBe("Requests per day: 12,000 (assumed from 2,000 conversations × 6 messages a day).");
    // gpt-5.4-mini: 1,000 × $0.40/1M + 500 × $1.60/1M = $0.0012 a request; × 12,000 × 30 = $432.
    expect(line(text, "Monthly cost")).toBe(
      "Monthly cost: $432.00 (30 days × 12,000 requests × $0.0012 per request, at $0.40 input and $1.60 output per 1M tokens).",
    );
    expect(line(text, "Recommended credit pack")).toBe("Recommended credit pack: 2 × Scale a month (pay $400.00, get $500.00 in credits).");
  });

  test.each([
    ["40 developers, 200 requests each per day", "8,000 (assumed from 40 developers × 200 requests a day)."],
    ["500 users, 20 messages a day", "10,000 (assumed from 500 users × 20 messages a day)."],
    ["batch summarise 10k documents per day", "10,000 (from the volume you described)."],
  ])("%p", async (content, expected) => {
    const text = await answerText(await postEstimator(gateway().url, ask(content)));
    expect(line(text, "Requests per day")).toBe(`Requests per day: ${expected}`);
  });
});
