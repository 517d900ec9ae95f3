import { beforeAll, describe, expect, test } from "bun:test";
import { nanos } from "../../src/core/money.ts";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const THRESHOLD_RANGE = "threshold must be a number from 0 to 100, or null to turn alerts off";
const LIMIT_RANGE = "limit must be a number from 0 to 10000, or -1 for no limit";

describeEachDialect("safety settings", (dialect) => {
  const gateway = useGateway(dialect);
  let user: Browser;
  beforeAll(async () => {
    user = await signUpUser(gateway().url);
  });
  const account = async () => readJson(await user.send("GET", "/account"));
  const stored = async () => (await gateway().store.findAccountByEmail(user.email))!;

  describe("PATCH /settings/alert-threshold", () => {
    test.each([[0], [100], [12.5], [0.01], [null]])("stores %p and answers it", async (threshold) => {
      const res = await user.send("PATCH", "/settings/alert-threshold", { threshold });
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ success: true, threshold });
      expect((await account()).alertThreshold).toBe(threshold);
    });

    test("keeps the threshold as exact nano-USD", async () => {
      await user.send("PATCH", "/settings/alert-threshold", { threshold: 33.333333333 });
      expect((await stored()).alertThreshold).toBe(nanos(33_333_333_333n));
    });

    test.each([
      ["below 0", { threshold: -0.01 }],
      ["above 100", { threshold: 100.5 }],
      ["a numeric string", { threshold: "50" }],
      ["a NaN string", { threshold: "NaN" }],
      ["a boolean", { threshold: true }],
      ["missing", { other: 1 }],
    ])("refuses a threshold %s with 400 and keeps the stored one", async (_title, body) => {
      await user.send("PATCH", "/settings/alert-threshold", { threshold: 7 });
      const res = await user.send("PATCH", "/settings/alert-threshold", body);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: THRESHOLD_RANGE });
      expect((await account()).alertThreshold).toBe(7);
    });
  });

  describe("PATCH /settings/spend-safety-limit", () => {
    test("a new account has no limit: -1", async () => {
      expect((await readJson(await (await signUpUser(gateway().url)).send("GET", "/account"))).spendSafetyLimit).toBe(-1);
    });

    test.each([[0], [10000], [250.75], [-1]])("stores %p and answers it", async (limit) => {
      const res = await user.send("PATCH", "/settings/spend-safety-limit", { limit });
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({ success: true, limit });
      expect((await account()).spendSafetyLimit).toBe(limit);
    });

    test("-1 is stored as no limit at all", async () => {
      await user.send("PATCH", "/settings/spend-safety-limit", { limit: 5 });
      expect((await stored()).spendLimit).toBe(nanos(5_000_000_000n));
      await user.send("PATCH", "/settings/spend-safety-limit", { limit: -1 });
      expect((await stored()).spendLimit).toBeNull();
    });

    test.each([
      ["-2", { limit: -2 }],
      ["a fraction below zero", { limit: -0.5 }],
      ["above 10000", { limit: 10000.01 }],
      ["null", { limit: null }],
      ["a string", { limit: "abc" }],
      ["the string -1", { limit: "-1" }],
      ["missing", {}],
    ])("refuses %s with 400 and keeps the stored limit", async (_title, body) => {
      await user.send("PATCH", "/settings/spend-safety-limit", { limit: 42 });
      const res = await user.send("PATCH", "/settings/spend-safety-limit", body);
      expect(res.status).toBe(400);
      expect(await readJson(res)).toEqual({ error: LIMIT_RANGE });
      expect((await account()).spendSafetyLimit).toBe(42);
    });
  });

  test.each([
    ["/settings/alert-threshold", "[1]", "Request body must be a JSON object"],
    ["/settings/spend-safety-limit", "{", "Request body is not valid JSON"],
    ["/settings/spend-safety-limit", "42", "Request body must be a JSON object"],
  ])("PATCH %s with the body %s answers 400", async (path, body, error) => {
    const res = await user.send("PATCH", path, body);
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error });
  });

  test.each([["/settings/alert-threshold"], ["/settings/spend-safety-limit"]])("POST %s answers 405", async (path) => {
    const res = await request(gateway().url, "POST", path, {});
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("PATCH");
  });
});
