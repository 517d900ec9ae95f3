// `gateway orgs …` beyond membership, through the compiled binary on both databases: a name
// belongs to one organization, rename, delete when empty, credit grants with the console's
// bounds, adding a verified account directly, the pending invitations, and an invitation told
// apart from a membership. Every change is in the organization's audit log.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runGateway } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { exec } from "../../src/db/sql.ts";
import { createStore } from "../../src/db/store/index.ts";
import { uniqueEmail } from "../support/session.ts";

// Each test runs the binary a dozen times; a busy machine takes seconds per run.
const SLOW_MS = 120_000;

describeEachDialect("the orgs CLI's administration", (dialect) => {
  let testDb: TestDatabase;
  const cli = (...args: string[]) => runGateway(args, { DATABASE_URL: testDb.url });
  const cliJson = async (...args: string[]) => {
    const run = await cli(...args, "--json");
    if (run.code !== 0) throw new Error(`gateway ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };
  const newUser = async (label = "org-adm") => {
    const email = uniqueEmail(label);
    await cliJson("users", "create", "--email", email);
    return email;
  };
  const newOrg = async () => cliJson("orgs", "create", "--email", await newUser(), "--name", `Org ${uniqueEmail("name")}`);
  /** The organization's audit log, oldest first, as type and detail. */
  const audit = async (orgId: string) => {
    const db = openTestDatabase(testDb.url);
    try {
      const events = await createStore(db).auditEvents(orgId, 0, 100);
      return events.reverse().map((e) => [e.type, e.detail]);
    } finally {
      await db.close();
    }
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await testDb.drop();
  });

  test("create refuses a name another organization has, whatever its case, naming that organization's id", async () => {
    const first = await cliJson("orgs", "create", "--email", await newUser(), "--name", "Acme Robotics");
    const again = await cli("orgs", "create", "--email", await newUser(), "--name", "acme ROBOTICS");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`organization ${first.id} is already named "Acme Robotics"`);
    expect((await cliJson("orgs", "list")).filter((o: { name: string }) => o.name.toLowerCase() === "acme robotics")).toHaveLength(1);
    // The name still finds it, in any case.
    expect((await cliJson("orgs", "members", "ACME robotics")).length).toBe(1);
  }, SLOW_MS);

  test("rename changes the name, refuses one another organization has, and is audited", async () => {
    const org = await newOrg();
    const other = await newOrg();
    expect(await cliJson("orgs", "rename", org.id, "--name", "Renamed Co")).toEqual({ id: org.id, name: "Renamed Co", role: "owner", createdAt: org.createdAt });
    const taken = await cli("orgs", "rename", other.id, "--name", "RENAMED co");
    expect(taken.stderr).toContain(`organization ${org.id} is already named "Renamed Co"`);
    expect(taken.code).toBe(1);
    // Its own name in another case is not a clash.
    expect(await cliJson("orgs", "rename", "Renamed Co", "--name", "Renamed CO")).toMatchObject({ id: org.id, name: "Renamed CO" });
    expect(await audit(org.id)).toContainEqual(["org_renamed", expect.stringContaining('renamed to "Renamed Co"')]);
  }, SLOW_MS);

  test("grant credits the organization within the console's bounds, never below zero, audited", async () => {
    const org = await newOrg();
    expect(await cliJson("orgs", "grant", org.id, "--usd", "12.5", "--note", "pilot")).toEqual({
      id: org.id, name: org.name, kind: "grant", amountUsd: "12.500000000", note: "pilot", balanceUsd: "12.500000000",
    });
    for (const [usd, says] of [["0", "usd must not be zero"], ["1000000.01", "usd must be at most 1000000"], ["1.0000000001", "at most 9 decimal places"], ["1e3", "usd must be a USD amount"]]) {
      const refused = await cli("orgs", "grant", org.id, "--usd", usd as string);
      expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: expect.stringContaining(says as string) });
    }
    const below = await cli("orgs", "grant", org.id, "--usd", "-20");
    expect(below.stderr).toContain("would take the balance of");
    expect(below.code).toBe(1);
    expect(await cliJson("orgs", "grant", org.id, "--usd", "-2.5")).toMatchObject({ kind: "adjustment", balanceUsd: "10.000000000" });
    expect(await audit(org.id)).toContainEqual(["credits_granted", expect.stringContaining("grant of 12.500000000 USD")]);
    expect((await cliJson("orgs", "list")).find((o: { id: string }) => o.id === org.id)).toMatchObject({ balanceUsd: "10.000000000" });
  }, SLOW_MS);

  test("delete refuses an organization with a balance and deletes an empty one, audited", async () => {
    const org = await newOrg();
    await cliJson("orgs", "grant", org.id, "--usd", "1");
    const refused = await cli("orgs", "delete", org.id);
    expect(refused.stderr).toContain("only when its balance is zero and no request is in flight");
    expect(refused.code).toBe(1);
    await cliJson("orgs", "grant", org.id, "--usd", "-1");
    expect(await cliJson("orgs", "delete", org.id)).toEqual({ success: true });
    expect((await cliJson("orgs", "list")).map((o: { id: string }) => o.id)).not.toContain(org.id);
    expect((await cli("orgs", "delete", org.id)).stderr).toContain(`no organization "${org.id}"`);
    expect((await audit(org.id)).at(-1)).toEqual(["org_deleted", expect.stringContaining("organization deleted")]);
    // Its name is free again.
    expect((await cli("orgs", "create", "--email", await newUser(), "--name", org.name)).code).toBe(0);
  }, SLOW_MS);

  test("add makes an existing verified account a member at once; not twice, nor an unverified or unknown one", async () => {
    const org = await newOrg();
    const person = await newUser();
    await cliJson("orgs", "invite", org.id, "--email", person, "--role", "member");
    expect(await cliJson("orgs", "add", org.id, "--email", person, "--role", "admin")).toMatchObject({ email: person, role: "admin" });
    const members = await cliJson("orgs", "members", org.id);
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toContainEqual([person, "admin"]);
    // The pending invitation it had is spent: the membership replaces it.
    expect(await cliJson("orgs", "invitations", org.id)).toEqual([]);
    expect((await cli("orgs", "add", org.id, "--email", person, "--role", "member")).stderr).toContain(`${person} is already a member`);
    expect((await cli("orgs", "add", org.id, "--email", "nobody-here@example.com", "--role", "member")).stderr).toContain("no account with e-mail");

    const unverified = await newUser();
    const db = openTestDatabase(testDb.url);
    try {
      await db.run(exec("UPDATE accounts SET email_verified_at = NULL WHERE email = ?", unverified));
    } finally {
      await db.close();
    }
    const refused = await cli("orgs", "add", org.id, "--email", unverified, "--role", "member");
    expect(refused.stderr).toContain("has not verified its e-mail");
    expect(refused.code).toBe(1);
    expect(await audit(org.id)).toContainEqual(["member_joined", expect.stringContaining(`${person} added as admin`)]);
  }, SLOW_MS);

  test("invitations lists the pending ones; set-role and remove tell an invitation from a membership; revoke-invitation ends it", async () => {
    const org = await newOrg();
    const invited = await newUser();
    const sent = await cliJson("orgs", "invite", org.id, "--email", invited, "--role", "admin");
    expect(await cliJson("orgs", "invitations", org.id)).toEqual([
      { id: sent.id, email: invited, role: "admin", expiresAt: sent.expiresAt, createdAt: expect.any(String) },
    ]);
    const hint = `${invited} has a pending invitation to "${org.name}", not a membership; revoke it with: gateway orgs revoke-invitation ${org.id} --email ${invited}`;
    for (const args of [["set-role", org.id, "--email", invited, "--role", "owner"], ["remove", org.id, "--email", invited]]) {
      const run = await cli("orgs", ...args);
      expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({ code: 1, stderr: `error: ${hint}` });
    }
    // Someone neither invited nor a member is told so.
    expect((await cli("orgs", "remove", org.id, "--email", await newUser())).stderr).toContain("is not a member of");
    expect(await cliJson("orgs", "revoke-invitation", org.id, "--email", invited)).toEqual({ success: true });
    expect(await cliJson("orgs", "invitations", org.id)).toEqual([]);
    expect((await cli("orgs", "revoke-invitation", org.id, "--email", invited)).stderr).toContain("no pending invitation");
    expect(await audit(org.id)).toContainEqual(["invitation_revoked", expect.stringContaining(`invitation of ${invited} revoked`)]);
  }, SLOW_MS);
});
