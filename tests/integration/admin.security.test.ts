import { describe, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { accountIdOf, signInOperator } from "../support/operator.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

// Every console endpoint, with a body its method accepts.
// (Every row has three items: Bun takes a callback parameter beyond a row's length for `done`.)
const ENDPOINTS: [string, string, unknown][] = [
  ["GET", "/admin/accounts", undefined],
  ["GET", "/admin/accounts/someone@example.com", undefined],
  ["POST", "/admin/accounts/someone@example.com/credits", { usd: "1" }],
  ["POST", "/admin/accounts/someone@example.com/ban", undefined],
  ["POST", "/admin/accounts/someone@example.com/unban", undefined],
  ["GET", "/admin/stats", undefined],
  ["GET", "/admin/models", undefined],
  ["PATCH", "/admin/models/gpt-4o", { enabled: true }],
  ["GET", "/admin/audit", undefined],
];

describeEachDialect("the console's endpoints: who may use them", (dialect) => {
  // No sign-up bonus, so that a balance shows any credit a refused request would have granted.
  const gateway = useGateway(dialect, { FREE_CREDITS_USD: "0" });

  test.each(ENDPOINTS)("%s %s without a session is 401 Unauthorized", async (method, path, body) => {
    const res = await request(gateway().url, method, path, body);
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 401, body: { error: "Unauthorized" } });
  });

  test.each(ENDPOINTS)("%s %s by a customer is 403 Forbidden, and changes nothing", async (method, path, body) => {
    const customer = await signUpUser(gateway().url);
    const res = await customer.send(method, path.replace("someone@example.com", customer.email), body);
    expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 403, body: { error: "Forbidden" } });
    const account = await gateway().store.findAccountByEmail(customer.email);
    expect({ balance: account?.balance, bannedAt: account?.bannedAt }).toEqual({ balance: 0n as never, bannedAt: null });
  });

  test("an operator who is demoted, banned or deleted loses the console on the next request", async () => {
    const { store } = gateway();
    for (const change of [{ isAdmin: false }, { bannedAt: Date.now() }, { deletedAt: Date.now() }]) {
      const operator = await signInOperator(gateway().url, store);
      expect((await operator.send("GET", "/admin/stats")).status).toBe(200);
      await store.updateAccount(await accountIdOf(store, operator), change);
      expect((await operator.send("GET", "/admin/stats")).status).toBe(403);
    }
  });

  test("a console write from another site is refused 403 before anything happens", async () => {
    const operator = await signInOperator(gateway().url, gateway().store);
    const customer = await signUpUser(gateway().url);
    const res = await operator.send("POST", `/admin/accounts/${customer.email}/ban`, undefined, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect((await gateway().store.findAccountByEmail(customer.email))?.bannedAt).toBeNull();
  });

  let operator: Browser | undefined;
  // Postgres cannot compare a NUL; the gateway must answer before the database is asked.
  test.each([
    ["GET", "/admin/accounts/%00", undefined, 404],
    ["POST", "/admin/accounts/a%00b/ban", undefined, 404],
    ["PATCH", "/admin/models/gpt%00", { enabled: true }, 404],
    ["GET", "/admin/audit?email=%00", undefined, 404],
    ["GET", "/admin/accounts?q=%00", undefined, 400],
    ["GET", "/account/usage?model=%00", undefined, 400],
    ["GET", "/account/usage?key=%00", undefined, 400],
  ])("%s %s with a NUL is %d, not a 500", async (method, path, body, status) => {
    // One sign-in for them all: sign-ins are limited per IP.
    operator ??= await signInOperator(gateway().url, gateway().store);
    expect((await operator.send(method, path, body)).status).toBe(status);
  });

  describe("methods", () => {
    test.each([
      ["DELETE", "/admin/accounts", "GET"],
      ["POST", "/admin/accounts/a@example.com", "GET"],
      ["GET", "/admin/accounts/a@example.com/credits", "POST"],
      ["GET", "/admin/accounts/a@example.com/ban", "POST"],
      ["PUT", "/admin/accounts/a@example.com/unban", "POST"],
      ["POST", "/admin/stats", "GET"],
      ["POST", "/admin/models", "GET"],
      ["GET", "/admin/models/gpt-4o", "PATCH"],
      ["DELETE", "/admin/audit", "GET"],
    ])("%s %s is 405 with Allow: %s", async (method, path, allow) => {
      const res = await request(gateway().url, method, path);
      expect({ status: res.status, allow: res.headers.get("allow") }).toEqual({ status: 405, allow });
    });
  });
});
