import { beforeAll, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { signInOperator } from "../support/operator.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

interface Event {
  id: string;
  at: string;
  email: string | null;
  type: string;
  ip: string | null;
  detail: string | null;
}

describeEachDialect("the console's writes in the audit log", (dialect) => {
  const gateway = useGateway(dialect, { FREE_CREDITS_USD: "0" });
  let operator: Browser;
  beforeAll(async () => {
    operator = await signInOperator(gateway().url, gateway().store);
  });
  const consoleLog = async (query = ""): Promise<Event[]> => {
    const res = await operator.send("GET", `/admin/audit${query}`);
    expect(res.status).toBe(200);
    return (await readJson(res)).events;
  };

  test("a grant, a ban and an unban are audited on the customer's account, naming the operator", async () => {
    const user = await signUpUser(gateway().url);
    await operator.send("POST", `/admin/accounts/${user.email}/credits`, { usd: "2.5", note: "refund" });
    await operator.send("POST", `/admin/accounts/${user.email}/ban`);
    await operator.send("POST", `/admin/accounts/${user.email}/unban`);
    const by = `by operator ${operator.email}`;
    const expected = [
      { type: "unbanned", ip: "127.0.0.1", detail: by },
      { type: "banned", ip: "127.0.0.1", detail: by },
      { type: "credits_granted", ip: "127.0.0.1", detail: `grant of 2.500000000 USD ${by}: refund` },
    ];
    const own = (await readJson(await user.send("GET", "/account/audit"))).events as Event[];
    expect(own.filter((e) => e.type !== "signup").map(({ type, ip, detail }) => ({ type, ip, detail }))).toEqual(expected);
    const all = await consoleLog(`?email=${encodeURIComponent(user.email)}`);
    expect(all.filter((e) => e.type !== "signup").map(({ email, type, ip, detail }) => ({ email, type, ip, detail })))
      .toEqual(expected.map((e) => ({ email: user.email, ...e })));
  });

  test("a catalog edit is audited on the operator's account as model_updated", async () => {
    await operator.send("PATCH", "/admin/models/gpt-4.1", { enabled: false, outputPerMillionUsd: "9" });
    await operator.send("PATCH", "/admin/models/gpt-4.1", { enabled: true });
    const [latest, before] = await consoleLog();
    expect([before, latest]).toEqual([
      { id: expect.any(String), at: expect.any(String), email: operator.email, type: "model_updated", ip: "127.0.0.1",
        detail: `gpt-4.1: disabled, output 9.0000 USD/1M by operator ${operator.email}` },
      { id: expect.any(String), at: expect.any(String), email: operator.email, type: "model_updated", ip: "127.0.0.1",
        detail: `gpt-4.1: enabled by operator ${operator.email}` },
    ]);
  });

  test("a refused or failed write leaves no audit entry", async () => {
    const user = await signUpUser(gateway().url);
    // Sign-ups may be audited too (the accounts work records them); only the console's writes count here.
    const writes = async () => (await consoleLog()).filter((e) => e.type !== "signup");
    const before = await writes();
    expect((await operator.send("POST", `/admin/accounts/${user.email}/credits`, { usd: "0" })).status).toBe(400);
    expect((await operator.send("POST", "/admin/accounts/ghost@example.com/ban")).status).toBe(404);
    expect((await operator.send("PATCH", "/admin/models/no-such-model", { enabled: false })).status).toBe(404);
    expect((await operator.send("POST", `/admin/accounts/${operator.email}/ban`)).status).toBe(400);
    expect(await writes()).toEqual(before);
  });

  test("pages of 50, newest first; bad pages and unknown e-mails are refused", async () => {
    expect((await operator.send("GET", "/admin/audit?page=0")).status).toBe(400);
    const missing = await operator.send("GET", "/admin/audit?email=ghost@example.com");
    expect({ status: missing.status, body: await readJson(missing) }).toEqual({ status: 404, body: { error: "Account not found" } });
    const body = await readJson(await operator.send("GET", "/admin/audit?page=1"));
    expect(body).toMatchObject({ page: 1, hasMore: false });
  });
});
