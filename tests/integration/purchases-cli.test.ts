import { afterAll, beforeAll, expect, test } from "bun:test";
import { runGateway, spawnServe, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { expectRecords, PURCHASE } from "../support/api-records.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

/** A row of `purchases list --json`: GET /account/purchases' fields, and the console's money columns. */
interface Listed {
  id: string;
  createdAt: string;
  packId: string;
  packName: string;
  priceUsd: string | null;
  creditsUsd: string;
  status: string;
  paidAt: string | null;
  receiptUrl: string | null;
  invoiceUrl: string | null;
  source: string;
  paidUsd: string | null;
  refundedUsd: string;
  creditsTakenBackUsd: string;
  disputedUsd: string | null;
  disputeStatus: string | null;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachDialect("gateway purchases list, after buying through the compiled server", (dialect) => {
  let testDb: TestDatabase;
  let fake: FakeStripe;
  let server: ServeProcess;
  let buyer: Browser;
  const sessions: Record<string, string> = {};
  const cli = (...args: string[]) => runGateway(args, { DATABASE_URL: testDb.url });

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    fake = startFakeStripe();
    server = await spawnServe({ DATABASE_URL: testDb.url, FREE_CREDITS_USD: "0", ...stripeEnv(fake) });
    buyer = await signUpUser(server.url);
    // Pro, then Team, both paid; then a Builder checkout left open.
    for (const packId of ["pro", "team", "builder"]) {
      const res = await buyer.send("POST", "/checkout", { packId });
      expect(res.status).toBe(200);
      sessions[packId] = (await readJson(res)).sessionId;
    }
    for (const packId of ["pro", "team"]) {
      const session = fake.sessions.get(sessions[packId]!)!;
      expect((await deliver(server.url, stripeEvent("checkout.session.completed", paidSession(session)))).status).toBe(200);
    }
    // The receipts are looked up after the webhook answers: listed once they are in.
    await waitFor(async () => (await readJson(await buyer.send("GET", "/account/purchases"))).purchases
      .filter((p: { receiptUrl: string | null }) => p.receiptUrl !== null).length === 2, "the receipts");
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.stop();
    await testDb?.drop();
  });

  // Checkouts made within one millisecond have no order between them (the store's tests check
  // newest-first with distinct times), so these compare sorted by pack.
  const byPack = (stdout: string): Listed[] => (JSON.parse(stdout) as Listed[]).sort((a, b) => a.packId.localeCompare(b.packId));

  test("--json lists the paid purchases with GET /account/purchases' field names and types", async () => {
    const run = await cli("purchases", "list", "--email", buyer.email, "--json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const paid = {
      status: "paid", createdAt: expect.stringMatching(ISO), paidAt: expect.stringMatching(ISO), receiptUrl: expect.any(String),
      invoiceUrl: null, source: "checkout", refundedUsd: "0.00", creditsTakenBackUsd: "0.000000000", disputedUsd: null, disputeStatus: null,
    };
    const listed = byPack(run.stdout);
    expectRecords(PURCHASE, listed, "purchases list");
    expect(listed).toEqual([
      { id: sessions.pro!, packId: "pro", packName: "Pro", priceUsd: "50", creditsUsd: "60.00", paidUsd: "50.00", ...paid },
      { id: sessions.team!, packId: "team", packName: "Team", priceUsd: "100", creditsUsd: "120.00", paidUsd: "100.00", ...paid },
    ]);
    const api = (await readJson(await buyer.send("GET", "/account/purchases"))).purchases as Record<string, unknown>[];
    for (const row of listed) {
      const same = api.find((p) => p.id === row.id)!;
      expect(Object.fromEntries(Object.keys(same).map((k) => [k, row[k as keyof Listed] as unknown]))).toEqual(same);
    }
  });

  test("--all adds the checkout sessions not paid", async () => {
    const run = await cli("purchases", "list", "--all", "--email", buyer.email, "--json");
    expect(byPack(run.stdout).map((p) => [p.packId, p.status, p.paidAt])).toEqual([
      ["builder", "open", null],
      ["pro", "paid", expect.stringMatching(ISO)],
      ["team", "paid", expect.stringMatching(ISO)],
    ]);
  });

  test("prints a table without --json", async () => {
    const run = await cli("purchases", "list", "--email", buyer.email.toUpperCase());
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[1]).toMatch(/purchase\s+│ source\s+│ pack\s+│ price USD │ credits USD\s+│ status │ created\s+│ paid/);
    expect(lines.filter((l) => l.includes(sessions.team!))).toEqual([expect.stringMatching(/│ checkout │ team\s+│ 100\s+│ 120\.000000000 │ paid/)]);
    expect(lines.filter((l) => l.includes(sessions.pro!))).toHaveLength(1);
    expect(run.stdout).not.toContain(sessions.builder!);
  });

  test("the balance is exactly the two packs' credits", async () => {
    const account = await readJson(await buyer.send("GET", "/account"));
    expect(account.balanceUsd).toBe("180.000000");
  });

  test("--org lists an organization's purchases; neither or both of --email and --org is an error", async () => {
    const made = await cli("orgs", "create", "--email", buyer.email, "--name", `Buyers ${process.pid}`, "--json");
    const org = JSON.parse(made.stdout);
    const run = await cli("purchases", "list", "--org", org.id, "--json");
    expect({ code: run.code, rows: JSON.parse(run.stdout) }).toEqual({ code: 0, rows: [] });
    for (const args of [[], ["--email", buyer.email, "--org", org.id]]) {
      const wrong = await cli("purchases", "list", ...args);
      expect({ code: wrong.code, stderr: wrong.stderr.trim() }).toEqual({ code: 1, stderr: "error: give exactly one of --email and --org" });
    }
  });

  test("an unknown e-mail is an error on stderr, exit 1", async () => {
    const run = await cli("purchases", "list", "--email", "nobody@example.com");
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr.trim() }).toEqual({
      code: 1, stdout: "", stderr: 'error: no account with e-mail "nobody@example.com" (see: gateway users list)',
    });
  });
});
