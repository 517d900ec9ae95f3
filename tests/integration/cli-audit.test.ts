// Every CLI command that changes accounts, credits, keys or models leaves an audit event naming
// its actor: `cli`, with the operating-system user that ran it. Read back from the store.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { CLI_AUDIT_ACCOUNT, type AuditEvent } from "../../src/core/accounts/audit.ts";
import type { Database } from "../../src/db/database.ts";
import { createStore } from "../../src/db/store/index.ts";
import { runGatewayJson } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { uniqueEmail } from "../support/session.ts";

setDefaultTimeout(60_000);

// The OS user as os.userInfo() names it (Bun's: $USER), set here so that the test does not
// depend on the account running it.
const BY = "by cli (OS user ops-alice)";

describeEachDialect("the CLI's changes are in the audit log", (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  const cliJson = (...args: string[]) => runGatewayJson(args, { DATABASE_URL: testDb.url, USER: "ops-alice" });
  /** The account's events, oldest first, as [type, detail]. */
  const events = async (accountId: string): Promise<[string, string | null][]> =>
    (await createStore(db).auditEvents(accountId, 0, 50)).reverse().map((e: AuditEvent) => [e.type, e.detail]);
  /** The id of the account with this e-mail (the CLI prints the console's record, which has none). */
  const idOf = async (email: string): Promise<string> => (await createStore(db).findAccountByEmail(email))!.id;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    db = openTestDatabase(testDb.url);
  });
  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  test("users create, promote, demote, ban, unban, delete and credits grant: one event each, by cli and the OS user", async () => {
    const email = uniqueEmail("audited");
    await cliJson("users", "create", "--email", email, "--credits", "5", "--admin");
    const id = await idOf(email);
    for (const verb of ["demote", "promote", "ban", "unban", "delete"]) await cliJson("users", verb, email);
    await cliJson("credits", "grant", "--email", email, "--usd", "2.5", "--note", "ticket 7");
    expect(await events(id)).toEqual([
      ["account_created", `operator ${BY}`],
      ["credits_granted", `grant of 5.000000000 USD ${BY}: granted by the operator at creation`],
      ["demoted", BY], ["promoted", BY], ["banned", BY], ["unbanned", BY], ["account_deleted", BY],
      ["credits_granted", `grant of 2.500000000 USD ${BY}: ticket 7`],
    ]);
  });

  test("keys create, update, rotate and revoke: one event each, by cli and the OS user", async () => {
    const { email } = await cliJson("users", "create", "--email", uniqueEmail("keys"));
    const accountId = await idOf(email);
    const key = await cliJson("keys", "create", "--email", email, "--name", "ops");
    await cliJson("keys", "update", key.id, "--usd-per-hour", "3");
    const rotated = await cliJson("keys", "rotate", key.id);
    await cliJson("keys", "revoke", rotated.id);
    const found = await events(accountId);
    expect(found.map(([type]) => type)).toEqual(["account_created", "key_created", "key_updated", "key_rotated", "key_revoked"]);
    for (const [, detail] of found) expect(detail).toEndWith(BY);
    expect(found[2]![1]).toContain("usdPerHour");
  });

  test("without $USER or $LOGNAME the OS user is the uid's name in /etc/passwd", async () => {
    const { email } = await runGatewayJson(["users", "create", "--email", uniqueEmail("nouser")], { DATABASE_URL: testDb.url, USER: "", LOGNAME: "" });
    const id = await idOf(email);
    const uid = String(process.getuid!());
    const name = (await Bun.file("/etc/passwd").text()).split("\n").map((l) => l.split(":")).find((e) => e[2] === uid)![0];
    expect(await events(id)).toEqual([["account_created", `by cli (OS user ${name})`]]);
    expect(email).toBeString();
  });

  test("models disable, enable and set-price: model_updated in the operator's log, naming the change", async () => {
    const [model] = await cliJson("models", "list");
    await cliJson("models", "disable", model.id);
    await cliJson("models", "enable", model.id);
    await cliJson("models", "set-price", model.id, "--input", "1.5", "--output", "2");
    expect(await events(CLI_AUDIT_ACCOUNT)).toEqual([
      ["model_updated", `${model.id}: disabled ${BY}`],
      ["model_updated", `${model.id}: enabled ${BY}`],
      ["model_updated", `${model.id}: input 1.5000 USD/1M, output 2.0000 USD/1M ${BY}`],
    ]);
  });
});
