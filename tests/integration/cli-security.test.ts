// The operator's side of the accounts: `users verify`, `users audit`, and the audit events the
// CLI's own actions leave (credits, bans, keys), beside a running server on the same database.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { runGateway, runGatewayJson, spawnServe, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { signUpUser, uniqueEmail } from "../support/session.ts";

// Each step runs the compiled binary (a few seconds each on a busy 2-core host).
setDefaultTimeout(90_000);

describeEachDialect("the CLI's account security commands", (dialect) => {
  let testDb: TestDatabase;
  let server: ServeProcess;
  const env = () => ({ DATABASE_URL: testDb.url, USER: "ops-alice" });
  const cli = (...args: string[]) => runGateway(args, env());
  const cliJson = (...args: string[]) => runGatewayJson(args, env());

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    server = await spawnServe(env());
  });
  afterAll(() => server.stop().then(() => testDb.drop()));

  test("users verify confirms a signed-up account's e-mail and grants its free credits once", async () => {
    const user = await signUpUser(server.url);
    // The account as the console's API gives it: the free credits are in its balance.
    expect(await cliJson("users", "verify", user.email)).toMatchObject({ email: user.email, state: "active", balanceUsd: "5.000000000" });
    expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("5.000000");
    expect((await readJson(await user.send("GET", "/account/security"))).emailVerified).toBe(true);
    // Audited as the CLI's other changes are, naming the OS user; the link's own verification is not repeated.
    const audit = await cliJson("users", "audit", user.email);
    expect(audit.events.find((e: { type: string }) => e.type === "email_verified")?.detail).toBe(`${user.email} by cli (OS user ops-alice)`);
    const again = await cli("users", "verify", user.email);
    expect({ code: again.code, stdout: again.stdout.trim() }).toEqual({ code: 0, stdout: `${user.email} verified` });
    const unknown = await cli("users", "verify", uniqueEmail("nobody"));
    expect(unknown.code).toBe(1);
  });

  test("accounts made by the CLI are verified; list shows verification and 2FA", async () => {
    const email = uniqueEmail("made");
    const created = await cliJson("users", "create", "--email", email);
    expect(created).toMatchObject({ email, state: "active" });
    const list = await cli("users", "list");
    expect(list.stdout).toMatch(/verified\s*│\s*2FA/);
    expect(list.stdout).toMatch(new RegExp(`${email.replaceAll(".", "\\.")}\\s*│\\s*active\\s*│[^\\n]*│\\s*yes\\s*│\\s*off\\s*│`));
  });

  test("credits, bans and keys from the CLI are in the account's audit log, without an IP", async () => {
    const user = await signUpUser(server.url);
    await cliJson("credits", "grant", "--email", user.email, "--usd", "25", "--note", "support ticket 42");
    await cliJson("users", "ban", user.email);
    await cliJson("users", "unban", user.email);
    const key = await cliJson("keys", "create", "--email", user.email, "--name", "ops");
    const rotated = await cliJson("keys", "rotate", key.id);
    await cliJson("keys", "revoke", rotated.id);
    const audit = await cliJson("users", "audit", user.email);
    expect(audit.page).toBe(1);
    expect(audit.hasMore).toBe(false);
    expect(audit.events.map((e: { type: string; ip: string | null }) => [e.type, e.ip])).toEqual([
      ["key_revoked", null], ["key_rotated", null], ["key_created", null], ["unbanned", null], ["banned", null],
      ["credits_granted", null], ["signup", "127.0.0.1"],
    ]);
    expect(audit.events[5].detail).toBe(`grant of 25.000000000 USD by cli (OS user ops-alice): support ticket 42`);
    // The owner sees the same events.
    const own = await readJson(await user.send("GET", "/account/audit"));
    expect(own.events.map((e: { type: string }) => e.type)).toEqual(audit.events.map((e: { type: string }) => e.type));
    const table = await cli("users", "audit", user.email);
    expect(table.stdout).toContain("credits_granted");
    const badPage = await cli("users", "audit", user.email, "--page", "0");
    expect(badPage.stderr.trim()).toBe("error: --page: page must be a whole number from 1 to 1000");
  });
});
