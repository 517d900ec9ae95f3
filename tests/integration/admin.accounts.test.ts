import { beforeAll, describe, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { accountIdOf, signInOperator } from "../support/operator.ts";
import { signUpUser, uniqueEmail, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { insertUsageLog } from "../support/usage-logs.ts";
import { first, rows } from "../../src/db/sql.ts";

describeEachDialect("the console's accounts", (dialect) => {
  const gateway = useGateway(dialect, { FREE_CREDITS_USD: "0" });
  let operator: Browser;
  beforeAll(async () => {
    operator = await signInOperator(gateway().url, gateway().store);
  });
  const ledger = async (email: string) => {
    const id = (await gateway().store.findAccountByEmail(email))!.id;
    return gateway().db.run(rows("SELECT kind, amount_nanos, note FROM ledger_entries WHERE account_id = ? ORDER BY created_at, id", id));
  };

  describe("GET /admin/accounts", () => {
    test("finds accounts by part of the e-mail, case-insensitively, newest first", async () => {
      const tag = `find${process.pid}x${Date.now()}`;
      const older = await signUpUser(gateway().url, uniqueEmail(`${tag}-a`));
      const newer = await signUpUser(gateway().url, uniqueEmail(`${tag}-b`));
      await signUpUser(gateway().url);
      const res = await operator.send("GET", `/admin/accounts?q=${tag.toUpperCase()}`);
      expect(res.status).toBe(200);
      const body = await readJson(res);
      expect(body).toEqual({
        page: 1, pageSize: 50, hasMore: false,
        accounts: [newer, older].map((u) => ({
          email: u.email, state: "active", admin: false, balanceUsd: "0.000000", overdrawn: false, reservedUsd: "0.000000", inflight: 0,
          createdAt: expect.stringMatching(/Z$/), bannedAt: null,
        })),
      });
    });

    test("LIKE's wildcards in the query match only themselves", async () => {
      expect((await readJson(await operator.send("GET", "/admin/accounts?q=%25_"))).accounts).toEqual([]);
    });

    test.each([["page=0"], ["page=201"], ["page=x"], [`q=${"a".repeat(201)}`]])("refuses %s with 400", async (query) => {
      const res = await operator.send("GET", `/admin/accounts?${query}`);
      expect(res.status).toBe(400);
      expect((await readJson(res)).error).toMatch(/^(page|q) must/);
    });
  });

  describe("GET /admin/accounts/{email}", () => {
    test("shows the balance, keys, purchases and latest usage; 404 for an unknown e-mail", async () => {
      const user = await signUpUser(gateway().url);
      await user.send("POST", "/keys/generate", { name: "Backend" });
      await insertUsageLog(gateway().db, { accountId: await accountIdOf(gateway().store, user), createdAt: Date.now(), costNanos: 42n });
      const body = await readJson(await operator.send("GET", `/admin/accounts/${encodeURIComponent(user.email)}`));
      expect(body.account).toMatchObject({ email: user.email, state: "active", balanceUsd: "0.000000" });
      expect(body.keys.map((k: { name: string; status: string }) => [k.name, k.status])).toEqual([["Backend", "active"]]);
      expect(body.purchases).toEqual([]);
      expect(body.usage.map((u: { costUsd: string }) => u.costUsd)).toEqual(["0.000000042"]);
      const missing = await operator.send("GET", "/admin/accounts/nobody@example.com");
      expect({ status: missing.status, body: await readJson(missing) }).toEqual({ status: 404, body: { error: "Account not found" } });
    });
  });

  describe("POST /admin/accounts/{email}/credits", () => {
    test("grants exactly the amount, to the nano-USD, with the note in the ledger", async () => {
      const user = await signUpUser(gateway().url);
      const res = await operator.send("POST", `/admin/accounts/${user.email}/credits`, { usd: "12.345678901", note: " goodwill " });
      expect(res.status).toBe(200);
      expect(await readJson(res)).toEqual({
        email: user.email, kind: "grant", amountUsd: "12.345678901", note: "goodwill", balanceUsd: "12.345679",
      });
      const again = await readJson(await operator.send("POST", `/admin/accounts/${user.email}/credits`, { usd: 0.1 }));
      expect(again).toMatchObject({ kind: "grant", amountUsd: "0.100000000", note: "granted by an operator" });
      const back = await readJson(await operator.send("POST", `/admin/accounts/${user.email}/credits`, { usd: "-2.445678901" }));
      expect(back).toMatchObject({ kind: "adjustment", amountUsd: "-2.445678901", balanceUsd: "10.000000" });
      expect(await ledger(user.email)).toEqual([
        { kind: "grant", amount_nanos: 12_345_678_901n, note: "goodwill" },
        { kind: "grant", amount_nanos: 100_000_000n, note: "granted by an operator" },
        { kind: "adjustment", amount_nanos: -2_445_678_901n, note: "granted by an operator" },
      ] as never);
      const id = await accountIdOf(gateway().store, user);
      expect(await gateway().store.ledgerSum(id)).toBe(10_000_000_000n as never);
    });

    test.each([
      [{}, "usd must be a USD amount, such as \"25\" or \"2.50\""],
      [{ usd: "0" }, "usd must not be zero"],
      [{ usd: "0.0000000001" }, "usd must have at most 9 decimal places"],
      [{ usd: "1e3x" }, "usd must be a USD amount, such as \"25\" or \"2.50\""],
      [{ usd: true }, "usd must be a USD amount, such as \"25\" or \"2.50\""],
      [{ usd: "1000000.01" }, "usd must be at most 1000000 either way"],
      [{ usd: "1", note: 5 }, "note must be a string"],
      [{ usd: "1", note: "x".repeat(501) }, "note must be at most 500 characters"],
      [{ usd: "1", note: "a\nb" }, "note must not contain control characters"],
    ])("refuses %p with 400 and grants nothing", async (body, error) => {
      const user = await signUpUser(gateway().url);
      const res = await operator.send("POST", `/admin/accounts/${user.email}/credits`, body);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 400, body: { error } });
      expect(await ledger(user.email)).toEqual([]);
    });

    test("a body that is not a JSON object is 400; an unknown e-mail is 404", async () => {
      expect((await operator.send("POST", `/admin/accounts/${operator.email}/credits`, "[1]")).status).toBe(400);
      expect((await operator.send("POST", `/admin/accounts/${operator.email}/credits`, "{")).status).toBe(400);
      expect((await operator.send("POST", "/admin/accounts/ghost@example.com/credits", { usd: "1" })).status).toBe(404);
    });
  });

  describe("ban and unban", () => {
    test("a ban refuses the customer's session and keys at once; unban lifts it", async () => {
      const user = await signUpUser(gateway().url);
      const banned = await readJson(await operator.send("POST", `/admin/accounts/${user.email}/ban`));
      const { bannedAt } = banned;
      expect(banned).toMatchObject({ email: user.email, state: "banned", bannedAt: expect.stringMatching(/Z$/) });
      expect((await user.send("GET", "/account")).status).toBe(403);
      const again = await readJson(await operator.send("POST", `/admin/accounts/${user.email}/ban`));
      expect(again.bannedAt).toBe(bannedAt);
      expect(await readJson(await operator.send("POST", `/admin/accounts/${user.email}/unban`))).toMatchObject({ state: "active", bannedAt: null });
      expect((await user.send("GET", "/account")).status).toBe(200);
    });

    test("an operator cannot ban their own account", async () => {
      const res = await operator.send("POST", `/admin/accounts/${operator.email}/ban`);
      expect({ status: res.status, body: await readJson(res) }).toEqual({ status: 400, body: { error: "You cannot ban your own account" } });
      const row = await gateway().db.run(first("SELECT banned_at FROM accounts WHERE email = ?", operator.email));
      expect(row?.banned_at).toBeNull();
    });
  });
});
