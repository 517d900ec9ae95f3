import { beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/time.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway, type TestGateway } from "../support/server.ts";
import { insertUsageLog } from "../support/usage-logs.ts";

const T0 = Date.UTC(2026, 2, 14, 9, 26, 53, 589);

const accountId = async (gateway: TestGateway, user: Browser) => (await gateway.store.findAccountByEmail(user.email))!.id;

describeEachDialect("the dashboard's JSON reads", (dialect) => {
  const gateway = useGateway(dialect);

  describe("session rules", () => {
    test.each(["/account/usage", "/account/spend"])("GET %s without a session is 401 Unauthorized", async (path) => {
      const res = await request(gateway().url, "GET", path);
      expect(res.status).toBe(401);
      expect(await readJson(res)).toEqual({ error: "Unauthorized" });
    });

    test.each(["/account/usage", "/account/spend"])("%s takes only GET: 405 with Allow", async (path) => {
      const user = await signUpUser(gateway().url);
      const res = await user.send("POST", path, {});
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET");
    });

    test("a deleted account's session reads 404 Account not found", async () => {
      const user = await signUpUser(gateway().url);
      await gateway().store.updateAccount(await accountId(gateway(), user), { deletedAt: Date.now() });
      const res = await user.send("GET", "/account/spend");
      expect(res.status).toBe(404);
      expect(await readJson(res)).toEqual({ error: "Account not found" });
    });
  });

  describe("GET /account/usage", () => {
    let alice: Browser;
    let aliceKeyId: string;

    beforeAll(async () => {
      alice = await signUpUser(gateway().url);
      const created = await readJson(await alice.send("POST", "/keys/generate", { name: "Backend" }));
      const { keys } = await readJson(await alice.send("GET", "/keys/generate"));
      aliceKeyId = keys[0].id;
      expect(keys[0].prefix).toBe(created.key.slice(0, 10));
      const id = await accountId(gateway(), alice);
      await insertUsageLog(gateway().db, {
        accountId: id, keyId: aliceKeyId, createdAt: T0, model: "gpt-5.4-mini", promptTokens: 1200, completionTokens: 345,
        costNanos: 1_032_000_001n, latencyMs: 1834, status: "success", cachedTokens: 1024, savedNanos: 368_640n,
      });
      await insertUsageLog(gateway().db, {
        accountId: id, keyId: null, createdAt: T0 + 60_000, model: "deepseek-v3.2", promptTokens: 50, completionTokens: 0,
        costNanos: 0n, latencyMs: 120_000, status: "error", error: "Provider request timed out",
      });
      const bob = await signUpUser(gateway().url);
      await insertUsageLog(gateway().db, { accountId: await accountId(gateway(), bob), createdAt: T0 + 120_000, model: "gpt-4o" });
    });

    test("answers the caller's logs newest first, with the key's name, the exact cost and the failure reason", async () => {
      const res = await alice.send("GET", "/account/usage");
      expect(res.status).toBe(200);
      const prefix = (await readJson(await alice.send("GET", "/keys/generate"))).keys[0].prefix;
      expect(await readJson(res)).toEqual({
        page: 1,
        pageSize: 50,
        hasMore: false,
        matches: 2,
        usage: [
          {
            id: expect.any(String), createdAt: "2026-03-14T09:27:53.589Z", model: "deepseek-v3.2", requestedModel: "deepseek-v3.2",
            keyName: null, keyPrefix: null, promptTokens: 50, completionTokens: 0, cachedTokens: 0, costUsd: "0.000000000",
            savedUsd: "0.000000000", latencyMs: 120_000,
            status: "error", error: "Provider request timed out",
          },
          {
            id: expect.any(String), createdAt: "2026-03-14T09:26:53.589Z", model: "gpt-5.4-mini", requestedModel: "gpt-5.4-mini",
            keyName: "Backend", keyPrefix: prefix, promptTokens: 1200, completionTokens: 345, cachedTokens: 1024, costUsd: "1.032000001",
            savedUsd: "0.000368640", latencyMs: 1834, status: "success", error: null,
          },
        ],
      });
    });

    test("pages by 50: the first page says another follows, the second holds the rest", async () => {
      const user = await signUpUser(gateway().url);
      const id = await accountId(gateway(), user);
      for (let i = 0; i < 52; i++) await insertUsageLog(gateway().db, { accountId: id, createdAt: T0 + i * 1000, promptTokens: i });
      const first = await readJson(await user.send("GET", "/account/usage?page=1"));
      expect(first).toMatchObject({ page: 1, pageSize: 50, hasMore: true, matches: 52 });
      expect(first.usage.map((u: { promptTokens: number }) => u.promptTokens)).toEqual(Array.from({ length: 50 }, (_, i) => 51 - i));
      const second = await readJson(await user.send("GET", "/account/usage?page=2"));
      expect(second).toMatchObject({ page: 2, pageSize: 50, hasMore: false });
      expect(second.usage.map((u: { promptTokens: number }) => u.promptTokens)).toEqual([1, 0]);
    });

    test("a page past the last one is empty", async () => {
      expect(await readJson(await alice.send("GET", "/account/usage?page=3"))).toEqual({ page: 3, pageSize: 50, hasMore: false, matches: 2, usage: [] });
    });

    test.each(["0", "21", "-1", "1.5", "two", "", "00001"])("refuses page=%p with 400", async (page) => {
      const res = await alice.send("GET", `/account/usage?page=${page}`);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: "page must be a whole number from 1 to 20" });
    });

    test("never names another account's key, even one whose id a log carries", async () => {
      const mallory = await signUpUser(gateway().url);
      await insertUsageLog(gateway().db, { accountId: await accountId(gateway(), mallory), keyId: aliceKeyId, createdAt: T0 });
      const { usage } = await readJson(await mallory.send("GET", "/account/usage"));
      expect(usage.map((u: { keyName: string | null; keyPrefix: string | null }) => [u.keyName, u.keyPrefix])).toEqual([[null, null]]);
    });
  });

  describe("GET /account/spend", () => {
    test("sums the rolling last 24 hours, failed requests counted at their zero cost", async () => {
      const user = await signUpUser(gateway().url);
      const id = await accountId(gateway(), user);
      const now = Date.now();
      await insertUsageLog(gateway().db, { accountId: id, createdAt: now - 60_000, costNanos: 1_500_000_000n, savedNanos: 300_000_000n });
      await insertUsageLog(gateway().db, { accountId: id, createdAt: now - 23 * 60 * 60 * 1000, costNanos: 250n });
      await insertUsageLog(gateway().db, { accountId: id, createdAt: now - 2 * 60 * 60 * 1000, costNanos: 0n, status: "error" });
      await insertUsageLog(gateway().db, { accountId: id, createdAt: now - 25 * 60 * 60 * 1000, costNanos: 7_000_000_000n });
      const { last24Hours } = await readJson(await user.send("GET", "/account/spend"));
      expect(last24Hours).toEqual({ spendUsd: "1.500000250", savedUsd: "0.300000000", requests: 3 });
    });

    test("gives 30 UTC days, oldest first, zero on days without usage and nothing of other accounts", async () => {
      const user = await signUpUser(gateway().url);
      const other = await signUpUser(gateway().url);
      const id = await accountId(gateway(), user);
      const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
      const seeds: [number, bigint][] = [
        [today, 5n], [today + 1, 7n], [today - DAY_MS, 11n], [today - 29 * DAY_MS, 13n],
        [today - 29 * DAY_MS - 1, 17n], // the day before the chart starts
      ];
      for (const [createdAt, costNanos] of seeds) await insertUsageLog(gateway().db, { accountId: id, createdAt, costNanos });
      await insertUsageLog(gateway().db, { accountId: await accountId(gateway(), other), createdAt: today, costNanos: 1_000n });

      const { daily } = await readJson(await user.send("GET", "/account/spend"));
      const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const expected = Array.from({ length: 30 }, (_, i) => ({ date: date(today - (29 - i) * DAY_MS), spendUsd: "0.000000000", savedUsd: "0.000000000", requests: 0 }));
      expected[0] = { ...expected[0]!, spendUsd: "0.000000013", requests: 1 };
      expected[28] = { ...expected[28]!, spendUsd: "0.000000011", requests: 1 };
      expected[29] = { ...expected[29]!, spendUsd: "0.000000012", requests: 2 };
      expect(daily).toEqual(expected);
    });

    test("a new account has spent nothing", async () => {
      const user = await signUpUser(gateway().url);
      const body = await readJson(await user.send("GET", "/account/spend"));
      expect(body.last24Hours).toEqual({ spendUsd: "0.000000000", savedUsd: "0.000000000", requests: 0 });
      expect(body.daily).toHaveLength(30);
      expect(body.daily.every((d: { spendUsd: string }) => d.spendUsd === "0.000000000")).toBe(true);
    });
  });
});
