import { expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { request, signUpUser, type Browser } from "../support/session.ts";
import { useGateway, type TestGateway } from "../support/server.ts";

const accountId = async (gateway: TestGateway, user: Browser) => (await gateway.store.findAccountByEmail(user.email))!.id;

describeEachDialect("GET /account/audit", (dialect) => {
  const gateway = useGateway(dialect);

  test("answers the caller's own events, newest first, and never another account's", async () => {
    const alice = await signUpUser(gateway().url);
    const bob = await signUpUser(gateway().url);
    const at = Date.UTC(2030, 0, 1);
    await gateway().store.recordAudit({ accountId: await accountId(gateway(), alice), type: "banned", ip: null, detail: "by the operator", at });
    await gateway().store.recordAudit({ accountId: await accountId(gateway(), bob), type: "unbanned", ip: null, detail: null, at });
    const res = await alice.send("GET", "/account/audit");
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.page).toBe(1);
    expect(body.hasMore).toBe(false);
    expect(body.events[0]).toEqual({ id: expect.any(String), at: "2030-01-01T00:00:00.000Z", type: "banned", ip: null, detail: "by the operator" });
    expect(body.events.map((e: { type: string }) => e.type)).not.toContain("unbanned");
  });

  test.each(["0", "-1", "abc", "1.5", "1001"])("?page=%s answers 400", async (page) => {
    const user = await signUpUser(gateway().url);
    const res = await user.send("GET", `/account/audit?page=${page}`);
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error: "page must be a whole number from 1 to 1000" });
  });

  test("without a session answers 401; only GET is allowed", async () => {
    const res = await request(gateway().url, "GET", "/account/audit");
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual({ error: "Unauthorized" });
    const user = await signUpUser(gateway().url);
    const post = await user.send("POST", "/account/audit", {});
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });
});
