import { expect, test } from "bun:test";
import { MESSAGES } from "../../src/core/errors.ts";
import { createApp } from "../../src/server/app.ts";
import { ESTIMATOR_RATE_LIMIT } from "../../src/server/routes/estimator.ts";
import { silentLogger } from "../../src/server/log.ts";
import { describeEachDialect } from "../support/databases.ts";
import { answerText, ask, freshIp, postEstimator } from "../support/estimator.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";

const HOUR_SECONDS = 3_600;
const question = ask("a support chatbot for 500 users");

async function expectLimited(res: Response): Promise<number> {
  expect(res.status).toBe(429);
  expect(await readJson(res)).toEqual({ error: MESSAGES.estimatorRateLimited });
  return Number(res.headers.get("retry-after"));
}

describeEachDialect("the estimator's per-IP limit behind a trusted proxy", (dialect) => {
  const gateway = useGateway(dialect, { TRUST_PROXY: "1" });

  test("the limit is the spec's 20 an hour", () => {
    expect(ESTIMATOR_RATE_LIMIT).toEqual({ limit: 20, windowMs: HOUR_SECONDS * 1000 });
  });

  test("the 21st request from one IP within the hour is 429 with Retry-After; another IP is unaffected", async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await answerText(await postEstimator(gateway().url, question, { ip }));
    const retryAfter = await expectLimited(await postEstimator(gateway().url, question, { ip }));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(HOUR_SECONDS);

    await answerText(await postEstimator(gateway().url, question, { ip: freshIp() }));
    // The trusted proxy appends the address it saw: the right-most entry. Whatever the client
    // wrote to its left cannot get round the limit.
    await expectLimited(await postEstimator(gateway().url, question, { ip: `198.51.100.77, ${ip}` }));
  });

  test("malformed requests are refused before the limit and use none of it", async () => {
    const ip = freshIp();
    for (let i = 0; i < 25; i++) {
      expect((await postEstimator(gateway().url, { messages: "none" }, { ip })).status).toBe(400);
    }
    for (let i = 0; i < 20; i++) await answerText(await postEstimator(gateway().url, question, { ip }));
    await expectLimited(await postEstimator(gateway().url, question, { ip }));
  });

  test("the window rolls: Retry-After counts to when the oldest request leaves it, and then one more is allowed", async () => {
    const { config, store } = gateway();
    let clock = Date.UTC(2030, 0, 1);
    const app = createApp({ config, store, log: silentLogger, now: () => clock });
    const ip = freshIp();
    const send = () =>
      app.handle(
        new Request("http://gateway.test/estimator", {
          method: "POST",
          headers: { "x-forwarded-for": ip },
          body: JSON.stringify(question),
        }),
      );

    await answerText(await send());
    clock += 10 * 60 * 1000;
    for (let i = 0; i < 19; i++) await answerText(await send());
    expect(await expectLimited(await send())).toBe(HOUR_SECONDS - 10 * 60);

    clock += (HOUR_SECONDS - 10 * 60) * 1000 - 1;
    expect(await expectLimited(await send())).toBe(1);
    clock += 1;
    await answerText(await send());
    expect(await expectLimited(await send())).toBe(10 * 60);
  });
});

describeEachDialect("the estimator's per-IP limit without a trusted proxy", (dialect) => {
  const gateway = useGateway(dialect);

  test("X-Forwarded-For is ignored: changing it does not get round the limit", async () => {
    for (let i = 0; i < 20; i++) await answerText(await postEstimator(gateway().url, question));
    await expectLimited(await postEstimator(gateway().url, question));
  });
});
