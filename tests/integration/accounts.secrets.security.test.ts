// The account flows' secrets (link tokens, passwords, the TOTP secret, TOTP and recovery codes)
// leave the compiled server only in the one answer or e-mail that carries them: no log line holds
// any of them, and no table holds a token, a password or a recovery code (links are found by hash).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { totpCode } from "../../src/core/accounts/totp.ts";
import { rows } from "../../src/db/sql.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { openBooks, type Books } from "../support/books.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { readJson } from "../support/http.ts";
import { linkToken } from "../support/mail.ts";
import { PASSWORD, request, signUpUser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

setDefaultTimeout(30_000);

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

describeEachDialect("account secrets are kept out of logs and tables", (dialect) => {
  let testDb: TestDatabase;
  let books: Books;
  let gateway: ServeProcess;
  const secrets = new Map<string, string>();
  let totpSecret = "";

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    gateway = await spawnServe({ DATABASE_URL: testDb.url, SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
    books = openBooks(testDb.url);
    const url = gateway.url;
    const user = await signUpUser(url);
    const verify = await linkToken(smtp, user.email, "verify");
    expect((await request(url, "POST", "/auth/verify", { token: verify })).status).toBe(200);
    await request(url, "POST", "/auth/password/forgot", { email: user.email });
    const reset = await linkToken(smtp, user.email, "reset");
    const newPassword = "the reset password 42";
    expect((await request(url, "POST", "/auth/password/reset", { token: reset, password: newPassword })).status).toBe(200);
    secrets.set("verify link", verify).set("reset link", reset).set("sign-up password", PASSWORD).set("new password", newPassword);

    const session = await (async () => {
      const res = await request(url, "POST", "/auth/login", { email: user.email, password: newPassword });
      return res.headers.get("set-cookie")!.split(";")[0]!;
    })();
    const send = (path: string, body?: unknown) => request(url, "POST", path, body, { cookie: session });
    totpSecret = (await readJson(await send("/auth/totp/setup"))).secret;
    const setupCode = totpCode(totpSecret, Date.now());
    const { recoveryCodes } = await readJson(await send("/auth/totp/enable", { code: setupCode }));
    const changed = "the changed password 7";
    expect((await send("/auth/password/change", { currentPassword: newPassword, newPassword: changed })).status).toBe(200);
    const loginCode = totpCode(totpSecret, Date.now() + 30_000);
    expect((await request(url, "POST", "/auth/login", { email: user.email, password: changed, code: loginCode })).status).toBe(200);
    expect((await request(url, "POST", "/auth/login", { email: user.email, password: changed, code: recoveryCodes[0] })).status).toBe(200);
    secrets.set("changed password", changed).set("recovery code", recoveryCodes[0]).set("unused recovery code", recoveryCodes[1]);
    secrets.set("session", session.split("=")[1]!);
    await waitFor(async () => (await books.db.run(rows("SELECT id FROM alert_outbox WHERE sent_at IS NULL"))).length === 0, "the outbox to empty");
  });
  afterAll(async () => {
    await gateway.stop();
    await books.close();
    await testDb.drop();
  });

  test("no log line of the server holds a link, a password, the TOTP secret or a code", () => {
    const logs = gateway.logs.join("\n");
    expect(gateway.logs.length).toBeGreaterThan(0);
    for (const [what, value] of [...secrets, ["TOTP secret", totpSecret] as const]) {
      expect({ what, logged: logs.includes(value) }).toEqual({ what, logged: false });
    }
  });

  test("no table holds a link token, a password or a recovery code", async () => {
    const tables = dialect === "sqlite"
      ? await books.db.run(rows<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'"))
      : await books.db.run(rows<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"));
    const dumps = await Promise.all(tables.map(({ name }) => books.db.run(rows(`SELECT * FROM "${name}"`))));
    const stored = JSON.stringify(dumps, (_k, v) => (typeof v === "bigint" ? String(v) : v));
    for (const [what, value] of secrets) expect({ what, stored: stored.includes(value) }).toEqual({ what, stored: false });
  });
});
