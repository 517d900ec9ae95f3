// `gateway orgs …` through the compiled binary, on both databases: the operator makes an
// organization, invites, appoints and removes people, and cannot leave it without an owner.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runGateway } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { hashSessionToken } from "../../src/core/accounts/session.ts";
import { rows } from "../../src/db/sql.ts";
import { createStore } from "../../src/db/store/index.ts";
import { uniqueEmail } from "../support/session.ts";

describeEachDialect("the orgs CLI", (dialect) => {
  let testDb: TestDatabase;
  // The OS user as the audit log names it (Bun's os.userInfo() reads $USER).
  const cli = (...args: string[]) => runGateway(args, { DATABASE_URL: testDb.url, USER: "ops-alice" });
  const cliJson = async (...args: string[]) => {
    const run = await cli(...args, "--json");
    if (run.code !== 0) throw new Error(`gateway ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };
  const newUser = async () => {
    const email = uniqueEmail("org-cli");
    await cliJson("users", "create", "--email", email, "--password", "operator-set pw");
    return email;
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await testDb.drop();
  });

  test("create, invite, set-role, members, remove and list", async () => {
    const owner = await newUser();
    const other = await newUser();
    const org = await cliJson("orgs", "create", "--email", owner, "--name", "Team CLI");
    expect(org).toEqual({ id: expect.any(String), name: "Team CLI", role: "owner", createdAt: expect.stringMatching(/Z$/) });
    const invited = await cliJson("orgs", "invite", "Team CLI", "--email", other, "--role", "admin");
    expect(invited).toMatchObject({ email: other, role: "admin" });
    // The organization's audit log names the CLI's user as every CLI change does.
    const db = openTestDatabase(testDb.url);
    try {
      const events = await createStore(db).auditEvents(org.id, 0, 10);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expect(event.detail).toEndWith("(by cli (OS user ops-alice))");
    } finally {
      await db.close();
    }

    // The invited person is not a member until the link is followed, and is told so.
    expect((await cli("orgs", "set-role", org.id, "--email", other, "--role", "owner")).stderr).toContain(`${other} has a pending invitation to "Team CLI", not a membership`);
    expect((await cli("orgs", "remove", org.id, "--email", owner)).stderr).toContain("must keep an owner");
    expect((await cli("orgs", "set-role", org.id, "--email", owner, "--role", "member")).stderr).toContain("must keep an owner");

    const members = await cliJson("orgs", "members", org.id);
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([[owner, "owner"]]);
    expect(await cliJson("orgs", "list", "--email", owner)).toEqual([expect.objectContaining({ id: org.id, name: "Team CLI", role: "owner" })]);
    expect((await cliJson("orgs", "list")).map((o: { id: string }) => o.id)).toContain(org.id);
    expect((await cli("orgs", "members", "No Such Team")).code).toBe(1);
    expect((await cli("orgs", "invite", org.id, "--email", other, "--role", "boss")).stderr).toContain("--role must be one of");
  });

  test("the invited person joins by the e-mailed link; the operator appoints an owner and removes a member", async () => {
    const owner = await newUser();
    const other = await newUser();
    const org = await cliJson("orgs", "create", "--email", owner, "--name", `Team ${owner}`);
    await cliJson("orgs", "invite", org.id, "--email", other);
    // No server runs here: the invitation waits in the outbox, link and all.
    const db = openTestDatabase(testDb.url);
    try {
      const [mail] = await db.run(rows(
        "SELECT t.body FROM alert_outbox o JOIN account_mail_texts t ON t.outbox_id = o.id WHERE o.email = ? AND o.kind = 'account'", other,
      ));
      const token = /invitations\/accept\?token=([A-Za-z0-9_-]{43})/.exec(String(mail?.body))?.[1] as string;
      const store = createStore(db);
      const person = (await store.findAccountByEmail(other))!;
      const joined = await store.acceptInvitation({ tokenHash: hashSessionToken(token), userId: person.id, email: other, ip: null, now: Date.now() });
      expect(joined).toEqual({ ok: expect.objectContaining({ role: "member" }) });
    } finally {
      await db.close();
    }
    expect(await cliJson("orgs", "set-role", org.id, "--email", other, "--role", "owner")).toMatchObject({ email: other, role: "owner" });
    expect(await cliJson("orgs", "remove", org.id, "--email", owner)).toEqual({ success: true, revokedKeys: [] });
    const members = await cliJson("orgs", "members", org.id);
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([[other, "owner"]]);
  });
});
