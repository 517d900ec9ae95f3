import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "../../src/db/database.ts";
import { createStore } from "../../src/db/store/index.ts";
import { runGateway, spawnServe, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { expectSameRecord } from "../support/api-records.ts";
import { readJson } from "../support/http.ts";
import { logInUser, request, signUpUser, uniqueEmail } from "../support/session.ts";
import { insertUsageLog } from "../support/usage-logs.ts";

const SECRET = /^gw-[0-9A-Za-z]{48}$/;

describeEachDialect("the admin CLI, beside a running server on the same database", (dialect) => {
  let testDb: TestDatabase;
  let server: ServeProcess;
  let db: Database;
  const cli = (...args: string[]) => runGateway(args, { DATABASE_URL: testDb.url });
  const cliJson = async (...args: string[]) => {
    const run = await cli(...args, "--json");
    if (run.code !== 0) throw new Error(`gateway ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };
  const refused = async (args: string[], message: string) => {
    const run = await cli(...args);
    // --password works, with a warning first that other users of the machine can see it.
    const stderr = run.stderr.trim().split("\n").filter((line) => !line.startsWith("warning: --password is visible"));
    expect({ code: run.code, stderr: stderr.join("\n"), stdout: run.stdout }).toEqual({ code: 1, stderr: `error: ${message}`, stdout: "" });
  };
  const newUser = async (credits = "0") => {
    const email = uniqueEmail("cli");
    await cliJson("users", "create", "--email", email, "--password", "operator-set pw", "--credits", credits);
    return email;
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    server = await spawnServe({ DATABASE_URL: testDb.url });
    db = openTestDatabase(testDb.url);
  });
  afterAll(async () => {
    await server.stop();
    await db.close();
    await testDb.drop();
  });

  describe("users", () => {
    test("create makes an account with exactly --credits, which can sign in to the running server", async () => {
      const email = uniqueEmail("Ops");
      const created = await cliJson("users", "create", "--email", email.toUpperCase(), "--password", "operator-set pw", "--credits", "12.5");
      expect(created).toEqual({
        email: email.toLowerCase(), state: "active", admin: false, balanceUsd: "12.500000000", overdrawn: false, reservedUsd: "0.000000000",
        inflight: 0, createdAt: expect.stringMatching(/Z$/), bannedAt: null,
      });
      const user = await logInUser(server.url, email.toLowerCase(), "operator-set pw");
      expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("12.500000");
    });

    test("create without --credits gives no free credits, and without --password no sign-in", async () => {
      const email = uniqueEmail("nopw");
      const run = await cli("users", "create", "--email", email);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(`created ${email} with 0.000000000 USD`);
      const login = await request(server.url, "POST", "/auth/login", { email, password: "anything at all" });
      expect(login.status).toBe(401);
    });

    test.each([
      [["--email", "not-an-email"], "email must be a valid e-mail address"],
      [["--email", "alice\u200b@example.com"], "email must not contain invisible or formatting characters"],
      [["--email", "\u0430lice@example.com"], "email must not mix scripts (such as Latin and Cyrillic) in one part"],
      [["--email", "x@example.com", "--password", "short"], "password must be at least 10 characters"],
      [["--email", "y@example.com", "--credits", "-1"], '--credits must be a USD amount from 0 to 1000000 (got "-1")'],
      [["--email", "z@example.com", "--credits", "lots"], '--credits must be a USD amount from 0 to 1000000 (got "lots")'],
      [["--email", "h@example.com", "--credits", "0x10"], '--credits must be a USD amount from 0 to 1000000 (got "0x10")'],
      [["--email", "e@example.com", "--credits", "1e3"], '--credits must be a USD amount from 0 to 1000000 (got "1e3")'],
    ])("create %p fails with exit 1", async (args, message) => {
      await refused(["users", "create", ...args], message);
    });

    test("create refuses a taken e-mail", async () => {
      const email = await newUser();
      await refused(["users", "create", "--email", email], `an account with e-mail "${email}" already exists`);
    });

    test("list shows every account, as JSON and as a table", async () => {
      const email = await newUser("3");
      const listed = (await cliJson("users", "list")) as { email: string; balanceUsd: string }[];
      expect(listed.find((u) => u.email === email)?.balanceUsd).toBe("3.000000000");
      const table = await cli("users", "list");
      expect(table.stdout).toMatch(new RegExp(`${email.replaceAll(".", "\\.")}\\s*│\\s*active\\s*│\\s*│\\s*3\\.000000000`));
    });

    test("ban refuses sign-in on the running server at once; unban lifts it", async () => {
      const email = await newUser();
      const session = await logInUser(server.url, email, "operator-set pw");
      expect((await cliJson("users", "ban", email)).state).toBe("banned");
      expect((await request(server.url, "POST", "/auth/login", { email, password: "operator-set pw" })).status).toBe(403);
      expect((await session.send("GET", "/account")).status).toBe(403);
      expect((await cli("users", "unban", email)).stdout.trim()).toBe(`${email} unbanned`);
      expect((await session.send("GET", "/account")).status).toBe(200);
    });

    test("delete marks the account deleted and erases nothing", async () => {
      const email = await newUser("2");
      const session = await logInUser(server.url, email, "operator-set pw");
      const deleted = await cliJson("users", "delete", email);
      expect(deleted).toMatchObject({ email, state: "deleted", balanceUsd: "2.000000000" });
      expect((await session.send("GET", "/account")).status).toBe(404);
      expect((await cliJson("credits", "show", "--email", email)).balanceUsd).toBe("2.000000000");
    });

    test("create --admin makes an operator; demote and promote change the role, and the console follows at once", async () => {
      const email = uniqueEmail("op");
      expect((await cliJson("users", "create", "--email", email, "--password", "operator-set pw", "--admin")).admin).toBe(true);
      const session = await logInUser(server.url, email, "operator-set pw");
      expect((await session.send("GET", "/admin/stats")).status).toBe(200);
      expect(await cliJson("users", "demote", email)).toMatchObject({ email, admin: false });
      expect((await session.send("GET", "/admin/stats")).status).toBe(403);
      expect((await cli("users", "promote", email)).stdout.trim()).toBe(`${email} promoted to operator`);
      expect((await session.send("GET", "/admin/stats")).status).toBe(200);
      const table = await cli("users", "list");
      expect(table.stdout).toMatch(new RegExp(`${email.replaceAll(".", "\\.")}\\s*│\\s*active\\s*│\\s*yes`));
    });

    test.each([["ban"], ["unban"], ["delete"], ["promote"], ["demote"]])("%s of an unknown e-mail fails with exit 1", async (verb) => {
      await refused(["users", verb, "nobody@example.com"], 'no account with e-mail "nobody@example.com" (see: gateway users list)');
    });
  });

  describe("credits", () => {
    test("grant adds credits, a negative grant is an adjustment, and show reconciles with the ledger", async () => {
      const email = await newUser("1");
      expect(await cliJson("credits", "grant", "--email", email, "--usd", "7.5", "--note", "goodwill")).toEqual({
        email, kind: "grant", amountUsd: "7.500000000", note: "goodwill", balanceUsd: "8.500000000",
      });
      expect((await cli("credits", "grant", "--email", email, "--usd", "-0.25")).stdout.trim()).toBe(
        `adjustment of -0.250000000 USD to ${email}; balance 8.250000000 USD`,
      );
      expect(await cliJson("credits", "show", "--email", email)).toEqual({
        email, balanceUsd: "8.250000000", reservedUsd: "0.000000000", availableUsd: "8.250000000", ledgerSumUsd: "8.250000000",
      });
      const user = await logInUser(server.url, email, "operator-set pw");
      expect((await readJson(await user.send("GET", "/account"))).balanceUsd).toBe("8.250000");
      expect((await cli("credits", "show", "--email", email)).stdout).toContain("8.250000000");
    });

    // Only digits with at most 9 decimals: what Number or decimal.js would also read ("0x10" as 16, "1e3" as 1000) is refused.
    const NOT_DECIMAL = ["0x10", "1e3", " 1", "1.", ".5", "+1", "1_000", "Infinity", "NaN", "1.0000000001", "-0x10"];
    test.each([["0"], ["abc"], ["0.0000000001"], ...NOT_DECIMAL.map((usd) => [usd])])("grant refuses --usd %p and grants nothing", async (usd) => {
      const email = await newUser("1");
      await refused(["credits", "grant", "--email", email, "--usd", usd], `--usd must be a non-zero USD amount (got "${usd}")`);
      expect((await cliJson("credits", "show", "--email", email)).ledgerSumUsd).toBe("1.000000000");
    });

    test("an unknown e-mail fails with exit 1", async () => {
      await refused(["credits", "show", "--email", "ghost@example.com"], 'no account with e-mail "ghost@example.com" (see: gateway users list)');
    });
  });

  describe("keys", () => {
    test("create prints the secret once, and the key is listed the same by the CLI and the server", async () => {
      const email = await newUser();
      const run = await cli("keys", "create", "--email", email, "--name", "ci", "--expires", "2031-01-01T00:00:00Z",
        "--credit-limit", "25", "--usd-per-hour", "1.5", "--requests-per-hour", "100");
      expect(run.code).toBe(0);
      const [secret, sentence] = run.stdout.trim().split("\n");
      expect(secret).toMatch(SECRET);
      expect(sentence).toContain('("ci")');

      const created = await cliJson("keys", "create", "--email", email);
      expect(created).toEqual({
        id: expect.any(String), key: expect.stringMatching(SECRET), name: "Default Key", expires_at: null, credit_limit_usd: null,
        rate_limit_usd_per_hour: null, rate_limit_requests_per_hour: null,
        message: "Store this key now: it is shown only once and cannot be retrieved later.",
      });

      const fromCli = await cliJson("keys", "list", "--email", email);
      const session = await logInUser(server.url, email, "operator-set pw");
      const fromServer = (await readJson(await session.send("GET", "/keys/generate"))).keys;
      // The API's records, field for field, their money exact.
      expectSameRecord(fromCli, fromServer);
      expect(fromCli[1]).toMatchObject({
        name: "ci", prefix: secret!.slice(0, 10), status: "active", expiresAt: "2031-01-01T00:00:00.000Z",
        creditLimitUsd: "25.000000000", rateLimitUsdPerHour: "1.500000000", rateLimitRequestsPerHour: 100,
      });
      expect(JSON.stringify(fromCli)).not.toContain(secret);
      expect((await cli("keys", "list", "--email", email)).stdout).toMatch(/ci\s*│\s*gw-\w{7}\s*│\s*active/);
    });

    test("keys made by the CLI do not count toward the dashboard's 5 keys per hour", async () => {
      const email = await newUser();
      for (let i = 0; i < 5; i++) await cliJson("keys", "create", "--email", email);
      const session = await logInUser(server.url, email, "operator-set pw");
      for (let i = 0; i < 5; i++) expect((await session.send("POST", "/keys/generate", {})).status).toBe(200);
    });

    test("update changes the given fields, and 'none' clears one", async () => {
      const email = await newUser();
      const { id } = await cliJson("keys", "create", "--email", email, "--credit-limit", "5", "--usd-per-hour", "2");
      const updated = await cliJson("keys", "update", id, "--name", "renamed", "--credit-limit", "none", "--requests-per-hour", "20");
      expect(updated).toMatchObject({ id, name: "renamed", creditLimitUsd: null, rateLimitUsdPerHour: "2.000000000", rateLimitRequestsPerHour: 20 });
      expect((await cli("keys", "update", id, "--expires", "none")).stdout.trim()).toBe(`key ${id} updated`);
    });

    test.each([
      [["--credit-limit", "0"], "--credit-limit must be a positive number"],
      [["--credit-limit", "0x10"], "--credit-limit must be a positive number"],
      [["--usd-per-hour", "1.234"], "--usd-per-hour must have at most 2 decimal places"],
      [["--requests-per-hour", "2.5"], "--requests-per-hour must be a positive whole number"],
      [["--expires", "2001-01-01T00:00:00Z"], "--expires must be in the future"],
      [["--name", " "], "--name must be a non-empty string"],
    ])("create and update refuse %p with exit 1, naming the flag", async (flags, message) => {
      const email = await newUser();
      await refused(["keys", "create", "--email", email, ...flags], message);
      const { id } = await cliJson("keys", "create", "--email", email);
      await refused(["keys", "update", id, ...flags], message);
    });

    test("rotate prints the replacement's secret and revokes the old key; a second rotate fails", async () => {
      const email = await newUser();
      const { id } = await cliJson("keys", "create", "--email", email, "--name", "prod", "--credit-limit", "9", "--requests-per-hour", "7");
      const rotated = await cliJson("keys", "rotate", id);
      expect(rotated).toEqual({
        id: expect.any(String), key: expect.stringMatching(SECRET),
        message: "The old key no longer works. Store the new key now: it is shown only once.",
      });
      const keys = await cliJson("keys", "list", "--email", email);
      expect(keys.map((k: { id: string; status: string }) => [k.id, k.status])).toEqual([[rotated.id, "active"], [id, "revoked"]]);
      expect(keys[0]).toMatchObject({ name: "prod", creditLimitUsd: "9.000000000", rateLimitRequestsPerHour: 7 });
      await refused(["keys", "rotate", id], "Key not found or already revoked");
    });

    test("--models and --ips keep a key to models and networks, and 'none' lifts them; the server enforces them", async () => {
      const email = await newUser("1");
      const { id, key } = await cliJson("keys", "create", "--email", email, "--models", "gpt-4.1-nano, gpt-4.1", "--ips", "198.51.100.0/24,2001:db8::/32");
      const [listed] = await cliJson("keys", "list", "--email", email);
      expect(listed).toMatchObject({ id, allowedModels: ["gpt-4.1-nano", "gpt-4.1"], allowedIps: ["198.51.100.0/24", "2001:db8::/32"] });
      expect((await cli("keys", "list", "--email", email)).stdout).toContain("198.51.100.0/24,2001:db8::/32");
      const refusedHere = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4.1-nano", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(refusedHere.status).toBe(403); // the CLI's server sees 127.0.0.1, outside both ranges
      const lifted = await cliJson("keys", "update", id, "--models", "none", "--ips", "none");
      expect(lifted).not.toHaveProperty("allowedModels");
      expect(lifted).not.toHaveProperty("allowedIps");
      await refused(["keys", "create", "--email", email, "--ips", "10.0.0.0/40"],
        "--ips must be a list of IP addresses or CIDR ranges; `10.0.0.0/40` is neither");
      await refused(["keys", "create", "--email", email, "--models", "gpt-9"], "--models names `gpt-9`, which is not a catalog model");
    });

    test("--management makes a management key, which the account endpoints take and /v1 refuses", async () => {
      const email = await newUser();
      const created = await cliJson("keys", "create", "--email", email, "--management", "--name", "provisioning");
      const secret: string = created.key;
      expect(secret).toMatch(/^gw-mgmt-[0-9A-Za-z]{48}$/);
      expect(created).toMatchObject({ name: "provisioning", management: true });
      const account = await fetch(`${server.url}/account`, { headers: { authorization: `Bearer ${secret}` } });
      expect(await readJson(account)).toMatchObject({ email });
      expect((await cli("keys", "list", "--email", email)).stdout).toContain("management key");
      await refused(["keys", "create", "--email", email, "--management", "--credit-limit", "5"], "--credit-limit does not apply to a management key");
    });

    test("revoke revokes once; a second revoke fails", async () => {
      const email = await newUser();
      const { id } = await cliJson("keys", "create", "--email", email);
      expect((await cliJson("keys", "revoke", id)).status).toBe("revoked");
      await refused(["keys", "revoke", id], `key ${id} is already revoked`);
    });

    test.each([["rotate"], ["revoke"], ["update"]])("%s of an unknown key id fails with exit 1", async (verb) => {
      await refused(["keys", verb, "01900000-0000-7000-8000-000000000000"],
        'no key with id "01900000-0000-7000-8000-000000000000" (see: gateway keys list --email E)');
    });

    test("create for an unknown e-mail fails with exit 1", async () => {
      await refused(["keys", "create", "--email", "ghost@example.com"], 'no account with e-mail "ghost@example.com" (see: gateway users list)');
    });
  });

  describe("usage export", () => {
    test("writes the same CSV as GET /usage/export, to a file or to stdout", async () => {
      const user = await signUpUser(server.url);
      const account = await createStore(db).findAccountByEmail(user.email);
      const t0 = Date.UTC(2026, 0, 5, 6, 7, 8, 9);
      await insertUsageLog(db, { accountId: account!.id, createdAt: t0, requestedModel: 'quoted, "name"', costNanos: 42n });
      await insertUsageLog(db, { accountId: account!.id, createdAt: t0 + 1, status: "error", costNanos: 0n });
      const fromServer = await (await user.send("GET", "/usage/export")).text();
      expect(fromServer.split("\r\n")).toHaveLength(4);

      const out = join(mkdtempSync(join(tmpdir(), "gateway-export-")), "usage.csv");
      // --json exports JSON rows (cli-usage-export.test.ts); without it, the CSV.
      const written = await cli("usage", "export", "--email", user.email, "--out", out);
      expect(written.code).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(fromServer);
      const stdout = await cli("usage", "export", "--email", user.email);
      expect(stdout.code).toBe(0);
      expect(stdout.stdout).toBe(fromServer);
    });

    test("an unknown e-mail fails with exit 1", async () => {
      await refused(["usage", "export", "--email", "ghost@example.com"], 'no account with e-mail "ghost@example.com" (see: gateway users list)');
    });
  });
});
