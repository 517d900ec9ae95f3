// Every CLI command's --json, run through the compiled binary: each record it prints has the
// shape of its record type (tests/support/api-records.ts), and a record the HTTP API also
// returns is the API's own, field for field, fetched from a server on the same database.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "../../src/db/database.ts";
import { createStore } from "../../src/db/store/index.ts";
import {
  ACCOUNT, ADMIN_ORG, AUDIT_PAGE, BACKED_UP, CLI_KEY_CREATED, CLI_KEY_ROTATED, CREDITS_SHOWN, DOCTOR, exact, expectRecord, expectRecords, expectSameRecord, GRANT,
  INVITATION, KEY, KEY_CREATED, KEY_ROTATED, MEMBER, MEMBER_REMOVED, MEMBERSHIP, MIGRATED, MODEL, ORG, ORG_GRANT, RESTORED, SUCCESS,
  USAGE_ROW, USAGE_WRITTEN, VERSION,
} from "../support/api-records.ts";
import { runGateway, spawnServe, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { logInUser, PASSWORD, uniqueEmail, type Browser } from "../support/session.ts";
import { insertUsageLog } from "../support/usage-logs.ts";

setDefaultTimeout(120_000);

describeEachDialect("the CLI's --json speaks the HTTP API's records", (dialect) => {
  let testDb: TestDatabase;
  let server: ServeProcess;
  let db: Database;
  let operator: Browser;
  const env = () => ({ DATABASE_URL: testDb.url });
  const cliJson = async (...args: string[]) => {
    const run = await runGateway([...args, "--json"], env());
    if (run.code !== 0) throw new Error(`gateway ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };
  const http = async (who: Browser, method: string, path: string, body?: unknown) => {
    const res = await who.send(method, path, body);
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return readJson(res);
  };
  /** An account made by the CLI (verified, with the tests' password), signed in to the server. */
  const person = async (label: string, credits = "0") => {
    const email = uniqueEmail(label);
    await cliJson("users", "create", "--email", email, "--password", PASSWORD, "--credits", credits);
    return logInUser(server.url, email);
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    server = await spawnServe(env());
    db = openTestDatabase(testDb.url);
    const email = uniqueEmail("operator");
    await cliJson("users", "create", "--email", email, "--password", PASSWORD, "--admin");
    operator = await logInUser(server.url, email);
  });
  afterAll(async () => {
    await server.stop();
    await db.close();
    await testDb.drop();
  });

  test("users: every command prints the account as GET /admin/accounts lists it; audit as GET /account/audit", async () => {
    const email = uniqueEmail("acct");
    expectRecord(exact(ACCOUNT), await cliJson("users", "create", "--email", email, "--password", PASSWORD, "--credits", "3"), "users create");
    const listed = await cliJson("users", "list");
    expectRecords(exact(ACCOUNT), listed, "users list");
    const [fromServer] = (await http(operator, "GET", `/admin/accounts?q=${encodeURIComponent(email)}`)).accounts;
    expectRecord(ACCOUNT, fromServer, "GET /admin/accounts");
    expectSameRecord(listed.find((a: { email: string }) => a.email === email), fromServer);

    for (const verb of ["verify", "ban", "unban", "promote", "demote"]) expectRecord(exact(ACCOUNT), await cliJson("users", verb, email), `users ${verb}`);
    const user = await logInUser(server.url, email);
    const audit = await cliJson("users", "audit", email);
    expectRecord(AUDIT_PAGE, audit, "users audit");
    expect(audit).toEqual(await http(user, "GET", "/account/audit"));
    expectRecord(exact(ACCOUNT), await cliJson("users", "delete", email), "users delete");
  });

  test("credits: grant prints what POST /admin/accounts/{email}/credits answers; show its own exact record", async () => {
    const user = await person("credits", "1");
    const granted = await cliJson("credits", "grant", "--email", user.email, "--usd", "2.5", "--note", "goodwill");
    expectRecord(exact(GRANT), granted, "credits grant");
    const fromServer = await http(operator, "POST", `/admin/accounts/${encodeURIComponent(user.email)}/credits`, { usd: "2.5", note: "goodwill" });
    expectRecord(GRANT, fromServer, "POST /admin/accounts/{email}/credits");
    expectSameRecord(granted, { ...fromServer, balanceUsd: "3.500000" });
    expectRecord(CREDITS_SHOWN, await cliJson("credits", "show", "--email", user.email), "credits show");
    // A nano-USD the API's 6 places would round away is printed as the ledger holds it.
    await cliJson("credits", "grant", "--email", user.email, "--usd", "0.000000001");
    const listed = (await cliJson("users", "list")).find((a: { email: string }) => a.email === user.email);
    expect(listed.balanceUsd).toBe("6.000000001");
  });

  test("keys: list, update and revoke print GET /keys' records; create and rotate the API's answers and the key's id", async () => {
    const user = await person("keys");
    const created = await cliJson("keys", "create", "--email", user.email, "--credit-limit", "2", "--usd-per-hour", "0.5", "--models", "gpt-4.1");
    expectRecord(CLI_KEY_CREATED, created, "keys create");
    const fromServer = await http(user, "POST", "/keys/generate", { name: "web", creditLimitUsd: 2, rateLimitUsdPerHour: 0.5, allowedModels: ["gpt-4.1"] });
    expectRecord(KEY_CREATED, fromServer, "POST /keys/generate");
    expect(typeof created.credit_limit_usd).toBe(typeof fromServer.credit_limit_usd);

    const listed = await cliJson("keys", "list", "--email", user.email);
    expectRecords(exact(KEY), listed, "keys list");
    expectSameRecord(listed, (await http(user, "GET", "/keys/generate")).keys);
    const updated = await cliJson("keys", "update", created.id, "--requests-per-hour", "9");
    expectRecord(exact(KEY), updated, "keys update");
    expectSameRecord(updated, await http(user, "PATCH", `/keys/${created.id}`, { rateLimitRequestsPerHour: 9 }));

    const rotated = await cliJson("keys", "rotate", created.id);
    expectRecord(CLI_KEY_ROTATED, rotated, "keys rotate");
    const webId = listed.find((k: { name: string }) => k.name === "web").id;
    expectRecord(KEY_ROTATED, await http(user, "POST", `/keys/${webId}/rotate`), "POST /keys/{id}/rotate");
    expectRecord(exact(KEY), await cliJson("keys", "revoke", rotated.id), "keys revoke");
  });

  test("models: every command prints the model as GET /admin/models lists it and PATCH /admin/models/{id} answers", async () => {
    const listed = await cliJson("models", "list");
    expectRecords(exact(MODEL), listed, "models list");
    expectSameRecord(listed, (await http(operator, "GET", "/admin/models")).models);
    expectRecord(exact(MODEL), await cliJson("models", "disable", "gpt-4o"), "models disable");
    expectRecord(exact(MODEL), await cliJson("models", "enable", "gpt-4o"), "models enable");
    const priced = await cliJson("models", "set-price", "gpt-4o", "--input", "2.5", "--output", "10");
    expectRecord(exact(MODEL), priced, "models set-price");
    expectSameRecord(priced, await http(operator, "PATCH", "/admin/models/gpt-4o", { inputPerMillionUsd: "2.5", outputPerMillionUsd: "10" }));
  });

  test("orgs: organizations, members and invitations as the /orgs and /admin/orgs endpoints give them", async () => {
    const owner = await person("owner");
    const other = await person("member");
    const org = await cliJson("orgs", "create", "--email", owner.email, "--name", `Org ${uniqueEmail("o")}`);
    expectRecord(ORG, org, "orgs create");
    const all = await cliJson("orgs", "list");
    expectRecords(exact(ADMIN_ORG), all, "orgs list");
    expectSameRecord(all, (await http(operator, "GET", "/admin/orgs")).organizations);
    const mine = await cliJson("orgs", "list", "--email", owner.email);
    expectRecords(exact(MEMBERSHIP), mine, "orgs list --email");
    expectSameRecord(mine, (await http(owner, "GET", "/orgs")).organizations);
    const renamed = await cliJson("orgs", "rename", org.id, "--name", `Renamed ${uniqueEmail("o")}`);
    expectRecord(ORG, renamed, "orgs rename");
    expectRecord(exact(ORG_GRANT), await cliJson("orgs", "grant", org.id, "--usd", "1"), "orgs grant");

    expectRecord(exact(MEMBER), await cliJson("orgs", "add", org.id, "--email", other.email), "orgs add");
    expectRecord(exact(MEMBER), await cliJson("orgs", "set-role", org.id, "--email", other.email, "--role", "admin"), "orgs set-role");
    const members = await cliJson("orgs", "members", org.id);
    expectRecords(exact(MEMBER), members, "orgs members");
    expectSameRecord(members, (await http(owner, "GET", `/orgs/${org.id}/members`)).members);

    expectRecord(INVITATION, await cliJson("orgs", "invite", org.id, "--email", uniqueEmail("invited")), "orgs invite");
    const invitations = await cliJson("orgs", "invitations", org.id);
    expectRecords(INVITATION, invitations, "orgs invitations");
    expect(invitations).toEqual((await http(owner, "GET", `/orgs/${org.id}/invitations`)).invitations);
    expectRecord(SUCCESS, await cliJson("orgs", "revoke-invitation", org.id, "--email", invitations[0].email), "orgs revoke-invitation");

    const removed = await cliJson("orgs", "remove", org.id, "--email", other.email);
    expectRecord(exact(MEMBER_REMOVED), removed, "orgs remove");
    await cliJson("orgs", "grant", org.id, "--usd", "-1");
    expectRecord(SUCCESS, await cliJson("orgs", "delete", org.id), "orgs delete");
  });

  test("usage export and purchases list: GET /account/usage's names, and the console's purchases", async () => {
    const user = await person("usage");
    const account = await createStore(db).findAccountByEmail(user.email);
    await insertUsageLog(db, { accountId: account!.id, createdAt: Date.now() - 1000, costNanos: 1234n });
    const rows = await cliJson("usage", "export", "--email", user.email);
    expectRecords(USAGE_ROW, rows, "usage export");
    const [fromServer] = (await http(user, "GET", "/account/usage")).usage;
    for (const [field, value] of Object.entries(rows[0])) expect([field, fromServer[field]]).toEqual([field, value]);
    const out = join(mkdtempSync(join(tmpdir(), "gw-json-")), "usage.json");
    expectRecord(USAGE_WRITTEN, await cliJson("usage", "export", "--email", user.email, "--out", out), "usage export --out");
    // A purchase's record is checked where Stripe's fake makes one (purchases-cli.test.ts).
    expect(await cliJson("purchases", "list", "--email", user.email)).toEqual([]);
  });

  test("records only the CLI prints: version, migrate, doctor", async () => {
    expectRecord(VERSION, await cliJson("version"), "version");
    expectRecord(MIGRATED, await cliJson("migrate"), "migrate");
    // doctor exits 1 when a required check fails (no provider key here); its JSON is printed either way.
    const doctor = await runGateway(["doctor", "--offline", "--json"], env());
    expectRecord(DOCTOR, JSON.parse(doctor.stdout), "doctor");
  });

  if (dialect === "sqlite") {
    describe("backup and restore", () => {
      test("print their own records", async () => {
        const dir = mkdtempSync(join(tmpdir(), "gw-json-"));
        const copy = join(dir, "copy.db");
        expectRecord(BACKED_UP, await cliJson("backup", "--out", copy), "backup");
        const restored = await runGateway(["restore", copy, "--json"], { DATABASE_URL: `sqlite:${join(dir, "restored.db")}` });
        expect(restored.stderr).toBe("");
        expectRecord(RESTORED, JSON.parse(restored.stdout), "restore");
      });
    });
  }
});
