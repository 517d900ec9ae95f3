// Organizations through HTTP, on both databases: one balance spent by several people, with
// roles, invitations by e-mail (through the real SMTP server), per-member daily caps,
// removal that stops a member's keys at once, and transfers from a personal balance.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { startFakeStripe, stripeEnv } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { linkToken } from "../support/mail.ts";
import { verifyEmail } from "../support/accounts.ts";
import { expectBooksClosed } from "../support/books.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";
import { postResponses } from "../support/responses.ts";
import { postMessages } from "../support/messages.ts";
import { hashSessionToken } from "../../src/core/accounts/session.ts";
import { signInOperator } from "../support/operator.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

describeEachDialect("organizations", (dialect) => {
  const fake = startFakeUpstream();
  const stripe = startFakeStripe();
  afterAll(() => Promise.all([fake.stop(), stripe.stop()]));
  const gateway = useGateway(dialect, { ...providerEnv(fake), ...stripeEnv(stripe), SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
  let owner: Browser;
  let admin: Browser;
  let member: Browser;
  let orgId: string;
  const url = () => gateway().url;
  const person = async (usd = "5") => {
    const browser = await signUpUser(url());
    await verifyEmail(gateway().store, browser.email, usd);
    return browser;
  };
  const userId = async (b: Browser) => (await gateway().store.findAccountByEmail(b.email))!.id;
  /** Invites `who` as `role` and follows the e-mailed link while signed in as them. */
  const join = async (who: Browser, role: string, n = 1) => {
    const invited = await owner.send("POST", `/orgs/${orgId}/invitations`, { email: who.email, role });
    expect(invited.status).toBe(201);
    const token = await linkToken(smtp, who.email, "invitations/accept", n);
    return who.send("POST", "/invitations/accept", { token });
  };
  const keyFor = async (b: Browser, body: Record<string, unknown> = {}) =>
    readJson(await b.send("POST", `/keys/generate?org=${orgId}`, { name: `key of ${b.email}`, ...body }));

  beforeAll(async () => {
    owner = await person("20");
    admin = await person();
    member = await person();
    const created = await owner.send("POST", "/orgs", { name: "Acme" });
    expect(created.status).toBe(201);
    const body = await readJson(created);
    expect(body).toMatchObject({ name: "Acme", role: "owner" });
    orgId = body.id;
    expect((await join(admin, "admin")).status).toBe(200);
    expect((await join(member, "member")).status).toBe(200);
  });

  test("an unverified person cannot create one; the members list shows each role", async () => {
    const unverified = await signUpUser(url());
    expect((await unverified.send("POST", "/orgs", { name: "Nope" })).status).toBe(403);
    const { members } = await readJson(await owner.send("GET", `/orgs/${orgId}/members`));
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [owner.email, "owner"], [admin.email, "admin"], [member.email, "member"],
    ]);
    expect((await readJson(await member.send("GET", "/orgs"))).organizations).toEqual([expect.objectContaining({ id: orgId, role: "member" })]);
  });

  test("an invitation works once, only for its address, and a resend kills the old link", async () => {
    const invitee = await person();
    const stranger = await person();
    const first = await readJson(await owner.send("POST", `/orgs/${orgId}/invitations`, { email: invitee.email, role: "member" }));
    expect(first).toEqual({ id: expect.any(String), email: invitee.email, role: "member", expiresAt: expect.any(String), createdAt: expect.any(String) });
    expect(Date.parse(first.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);
    const oldToken = await linkToken(smtp, invitee.email, "invitations/accept", 1);
    expect((await owner.send("POST", `/orgs/${orgId}/invitations/${first.id}/resend`)).status).toBe(200);
    const newToken = await linkToken(smtp, invitee.email, "invitations/accept", 2);
    expect((await invitee.send("POST", "/invitations/accept", { token: oldToken })).status).toBe(400);
    expect((await stranger.send("POST", "/invitations/accept", { token: newToken })).status).toBe(403);
    expect((await invitee.send("POST", "/invitations/accept", { token: newToken })).status).toBe(200);
    expect((await invitee.send("POST", "/invitations/accept", { token: newToken })).status).toBe(400);
  });

  test("only owners and admins invite, and only owners invite owners", async () => {
    expect((await member.send("POST", `/orgs/${orgId}/invitations`, { email: "x@example.com" })).status).toBe(403);
    expect((await admin.send("POST", `/orgs/${orgId}/invitations`, { email: "y@example.com", role: "owner" })).status).toBe(403);
    expect((await admin.send("POST", `/orgs/${orgId}/invitations`, { email: "y@example.com", role: "admin" })).status).toBe(201);
    expect((await owner.send("POST", `/orgs/${orgId}/invitations`, { email: member.email })).status).toBe(409);
  });

  test("another person's view of the organization is a 404, as for an unknown one", async () => {
    const outsider = await person();
    for (const path of [`/orgs/${orgId}/members`, `/keys/generate?org=${orgId}`, `/account?org=${orgId}`]) {
      expect((await outsider.send("GET", path)).status).toBe(404);
    }
    expect((await outsider.send("GET", "/account?org=00000000-0000-7000-8000-000000000000")).status).toBe(404);
  });

  test("a transfer moves credit once per idempotency key, never more than the balance", async () => {
    const before = await readJson(await owner.send("GET", `/account?org=${orgId}`));
    const body = { usd: "7.5", idempotencyKey: "first-top-up" };
    const moved = await readJson(await owner.send("POST", `/orgs/${orgId}/transfers`, body));
    expect(moved).toMatchObject({ success: true, usd: "7.500000", replayed: false, personalBalanceUsd: "12.500000" });
    const again = await readJson(await owner.send("POST", `/orgs/${orgId}/transfers`, body));
    expect(again).toMatchObject({ replayed: true, personalBalanceUsd: "12.500000", orgBalanceUsd: moved.orgBalanceUsd });
    expect(Number(moved.orgBalanceUsd) - Number(before.balanceUsd)).toBeCloseTo(7.5, 9);
    expect((await owner.send("POST", `/orgs/${orgId}/transfers`, { usd: "7.5", idempotencyKey: "first-top-up", other: 1 })).status).toBe(200);
    expect((await owner.send("POST", `/orgs/${orgId}/transfers`, { usd: 8, idempotencyKey: "first-top-up" })).status).toBe(409);
    expect((await owner.send("POST", `/orgs/${orgId}/transfers`, { usd: 100, idempotencyKey: "too-much" })).status).toBe(402);
    await expectBooksClosed(gateway().store, orgId);
    await expectBooksClosed(gateway().store, await userId(owner));
  });

  test("concurrent transfers with one idempotency key move the credit once; with many, never more than the balance", async () => {
    const giver = await person("3");
    expect((await join(giver, "member")).status).toBe(200);
    const same = await Promise.all(Array.from({ length: 8 }, () => giver.send("POST", `/orgs/${orgId}/transfers`, { usd: "1", idempotencyKey: "once" })));
    expect(same.map((r) => r.status)).toEqual(Array(8).fill(200));
    const many = await Promise.all(Array.from({ length: 8 }, (_, i) => giver.send("POST", `/orgs/${orgId}/transfers`, { usd: "0.75", idempotencyKey: `many-${i}` })));
    // $2 left after the first: exactly two of $0.75 fit.
    expect(many.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402, 402, 402, 402]);
    expect((await readJson(await giver.send("GET", "/account"))).balanceUsd).toBe("0.500000");
    await expectBooksClosed(gateway().store, await userId(giver));
    await expectBooksClosed(gateway().store, orgId);
  });

  test("a pack bought for an organization sends the buyer back to the organization's top-up page", async () => {
    const { sessionId } = await readJson(await owner.send("POST", `/checkout?org=${orgId}`, { packId: "builder" }));
    const session = stripe.sessions.get(sessionId)!;
    expect(session.success_url).toBe(`${gateway().config.dashboardUrl}/topup?checkout=success&session_id={CHECKOUT_SESSION_ID}&org=${orgId}`);
    expect(session.cancel_url).toBe(`${gateway().config.dashboardUrl}/topup?checkout=cancelled&org=${orgId}`);
    const personal = stripe.sessions.get((await readJson(await owner.send("POST", "/checkout", { packId: "builder" }))).sessionId)!;
    expect(personal.success_url).toBe(`${gateway().config.dashboardUrl}/topup?checkout=success&session_id={CHECKOUT_SESSION_ID}`);
  });

  test("an invitation stops working after 7 days, and once revoked", async () => {
    const late = await person();
    const invitation = await readJson(await owner.send("POST", `/orgs/${orgId}/invitations`, { email: late.email }));
    const token = await linkToken(smtp, late.email, "invitations/accept");
    const lateUser = (await gateway().store.findAccountByEmail(late.email))!;
    const expired = await gateway().store.acceptInvitation({
      tokenHash: hashSessionToken(token), userId: lateUser.id, email: late.email, ip: null, now: Date.parse(invitation.expiresAt),
    });
    expect(expired).toEqual({ refused: "invalid" });
    expect((await owner.send("DELETE", `/orgs/${orgId}/invitations/${invitation.id}`)).status).toBe(200);
    expect((await late.send("POST", "/invitations/accept", { token })).status).toBe(400);
    expect((await owner.send("DELETE", `/orgs/${orgId}/invitations/${invitation.id}`)).status).toBe(404);
  });

  test("the operator console lists organizations and their members, and appoints an owner", async () => {
    const operator = await signInOperator(url(), gateway().store);
    expect((await member.send("GET", "/admin/orgs")).status).toBe(403);
    const { organizations } = await readJson(await operator.send("GET", "/admin/orgs"));
    expect(organizations).toContainEqual(expect.objectContaining({ id: orgId, name: "Acme", members: expect.any(Number), balanceUsd: expect.any(String) }));
    const detail = await readJson(await operator.send("GET", `/admin/orgs/${orgId}`));
    expect(detail.members.map((m: { email: string }) => m.email)).toContain(admin.email);
    const appointed = await readJson(await operator.send("POST", `/admin/orgs/${orgId}/owners`, { email: admin.email }));
    expect(appointed).toMatchObject({ email: admin.email, role: "owner" });
    expect((await operator.send("POST", `/admin/orgs/${orgId}/owners`, { email: "nobody@example.com" })).status).toBe(404);
    // Back to admin, by an owner: the organization keeps its first owner.
    expect((await owner.send("PATCH", `/orgs/${orgId}/members/${await userId(admin)}`, { role: "admin" })).status).toBe(200);
    const search = await readJson(await operator.send("GET", "/admin/accounts?q=org:"));
    expect(JSON.stringify(search)).not.toContain(orgId);
  });

  test("the organization's audit log names who did what, for owners and admins", async () => {
    const { events } = await readJson(await admin.send("GET", `/account/audit?org=${orgId}`));
    const types = new Set(events.map((e: { type: string }) => e.type));
    for (const type of ["org_created", "invitation_sent", "member_joined", "credits_transferred"]) expect(types).toContain(type);
    expect(events.find((e: { type: string }) => e.type === "org_created").detail).toContain(`by ${owner.email}`);
  });

  describe("spending", () => {
    beforeAll(async () => {
      await owner.send("POST", `/orgs/${orgId}/transfers`, { usd: 5, idempotencyKey: "spending" });
    });

    test("a member's key charges the organization; the member sees only its own keys and usage", async () => {
      const mine = await keyFor(member);
      expect(mine.key).toMatch(/^gw-/);
      const shared = await keyFor(admin, { organizationKey: true });
      expect((await postChat(url(), mine.key, hello())).status).toBe(200);
      expect((await postChat(url(), shared.key, hello())).status).toBe(200);
      const memberKeys = (await readJson(await member.send("GET", `/keys/generate?org=${orgId}`))).keys;
      expect(memberKeys.map((k: { name: string }) => k.name)).toEqual([`key of ${member.email}`]);
      const memberUsage = (await readJson(await member.send("GET", `/account/usage?org=${orgId}`))).usage;
      const adminUsage = (await readJson(await admin.send("GET", `/account/usage?org=${orgId}`))).usage;
      expect(adminUsage.length).toBeGreaterThan(memberUsage.length);
      expect(memberUsage.every((l: { memberEmail?: string }) => l.memberEmail === member.email)).toBe(true);
      // The CSV names who made each request; a member exports its own rows only.
      const csv = async (who: Browser) => (await (await who.send("GET", `/usage/export?org=${orgId}`)).text()).trimEnd().split("\r\n");
      const [header, ...everyone] = await csv(admin);
      expect(header).toBe("date,model,requested_model,prompt_tokens,completion_tokens,cost_usd,latency_ms,status,member,key");
      expect(everyone.length).toBe(adminUsage.length);
      expect(everyone.some((row) => row.endsWith(`,${member.email},key of ${member.email}`))).toBe(true);
      expect(everyone.some((row) => row.endsWith(`,,key of ${admin.email}`))).toBe(true);
      const [, ...own] = await csv(member);
      expect(own.length).toBe(memberUsage.length);
      expect(own.every((row) => row.endsWith(`,${member.email},key of ${member.email}`))).toBe(true);
      expect((await member.send("POST", `/keys/generate?org=${orgId}`, { name: "x", organizationKey: true })).status).toBe(403);
      await expectBooksClosed(gateway().store, orgId);
    });

    test("what a member may not do answers 403", async () => {
      for (const [method, path] of [
        ["GET", `/account/purchases?org=${orgId}`], ["GET", `/account/audit?org=${orgId}`], ["GET", `/settings/webhook?org=${orgId}`],
        ["POST", `/settings/webhook/test?org=${orgId}`], ["POST", `/settings/webhook/deliveries/any/redeliver?org=${orgId}`],
        ["PATCH", `/settings/alert-threshold?org=${orgId}`], ["GET", `/orgs/${orgId}/invitations`], ["POST", `/checkout?org=${orgId}`],
        ["GET", `/settings/auto-topup?org=${orgId}`], ["PUT", `/settings/auto-topup?org=${orgId}`], ["DELETE", `/settings/auto-topup?org=${orgId}`],
        ["POST", `/account/purchases/cs_test_any/cancel?org=${orgId}`],
      ] as const) {
        expect({ path, status: (await member.send(method, path, method === "GET" ? undefined : {})).status }).toEqual({ path, status: 403 });
      }
      expect(await readJson(await member.send("PATCH", `/orgs/${orgId}/members/${await userId(member)}`, { spendCapUsdPerDay: null }))).toEqual({ error: "Forbidden" });
      expect((await admin.send("PATCH", `/orgs/${orgId}/members/${await userId(owner)}`, { role: "member" })).status).toBe(403);
      expect((await admin.send("PATCH", `/orgs/${orgId}/members/${await userId(admin)}`, { spendCapUsdPerDay: 100 })).status).toBe(403);
    });

    test("an admin sets the organization's automatic top-up, apart from its own", async () => {
      const settings = { packId: "team", thresholdUsd: "20", monthlyMaxUsd: "300" };
      const put = await admin.send("PUT", `/settings/auto-topup?org=${orgId}`, settings);
      expect({ status: put.status, body: await readJson(put) }).toMatchObject({ status: 200, body: { enabled: true, packId: "team", thresholdUsd: "20.00" } });
      expect(await readJson(await owner.send("GET", `/settings/auto-topup?org=${orgId}`))).toMatchObject({ enabled: true, packId: "team" });
      expect(await readJson(await admin.send("GET", "/settings/auto-topup"))).toMatchObject({ enabled: false, packId: null });
      // The organization's next Checkout saves the card.
      expect((await owner.send("POST", `/checkout?org=${orgId}`, { packId: "builder" })).status).toBe(200);
      expect(stripe.received.at(-1)!.form).toMatchObject({ "payment_intent_data[setup_future_usage]": "off_session", "metadata[accountId]": orgId });
      expect((await owner.send("DELETE", `/settings/auto-topup?org=${orgId}`)).status).toBe(200);
    });

    test("a member reads its own row of the members list only, never another's cap or spend", async () => {
      const { members } = await readJson(await member.send("GET", `/orgs/${orgId}/members`));
      expect(members.map((m: { email: string }) => m.email)).toEqual([member.email]);
      const everyone = await readJson(await admin.send("GET", `/orgs/${orgId}/members`));
      expect(everyone.members.map((m: { email: string }) => m.email)).toEqual(expect.arrayContaining([owner.email, admin.email, member.email]));
    });

    test("the last owner cannot leave or be demoted", async () => {
      const self = await userId(owner);
      expect((await owner.send("DELETE", `/orgs/${orgId}/members/${self}`)).status).toBe(409);
      expect((await owner.send("PATCH", `/orgs/${orgId}/members/${self}`, { role: "admin" })).status).toBe(409);
    });

    test("a member's daily cap holds under parallel requests, and its refusal is a 402 naming the cap", async () => {
      const capped = await person();
      expect((await join(capped, "member")).status).toBe(200);
      const cap = "0.0001";
      expect((await owner.send("PATCH", `/orgs/${orgId}/members/${await userId(capped)}`, { spendCapUsdPerDay: cap })).status).toBe(200);
      const { key } = await keyFor(capped);
      const answers = await Promise.all(Array.from({ length: 24 }, () => postChat(url(), key, hello("gpt-4.1-nano", { max_tokens: 100 }))));
      const statuses = answers.map((r) => r.status);
      expect(statuses).toContain(200);
      expect(statuses).toContain(402);
      const refusal = await readJson(answers[statuses.indexOf(402)]!);
      expect(refusal.error.message).toContain("daily spend cap");
      // Every door admits through the same step: none skips the cap (these ceilings alone pass it).
      const responses = await postResponses(url(), key, { model: "gpt-4.1-nano", input: "hello", max_output_tokens: 10_000 });
      expect(responses.status).toBe(402);
      expect((await readJson(responses)).error.message).toContain("daily spend cap");
      const messages = await postMessages(url(), key, { model: "gpt-4.1-nano", max_tokens: 10_000, messages: [{ role: "user", content: "hello" }] });
      expect(messages.status).toBe(402);
      expect(JSON.stringify(await readJson(messages))).toContain("daily spend cap");
      const row = (await readJson(await owner.send("GET", `/orgs/${orgId}/members`))).members.find((m: { email: string }) => m.email === capped.email);
      expect(Number(row.spentTodayUsd)).toBeGreaterThan(0);
      expect(Number(row.spentTodayUsd)).toBeLessThanOrEqual(Number(cap));
      await expectBooksClosed(gateway().store, orgId);
    });

    test("removing a member revokes its keys at once while the organization's keys go on", async () => {
      const leaving = await person();
      expect((await join(leaving, "member")).status).toBe(200);
      const theirs = await keyFor(leaving);
      const [{ id: theirId }] = (await readJson(await leaving.send("GET", `/keys/generate?org=${orgId}`))).keys;
      const shared = await keyFor(owner, { organizationKey: true });
      expect((await postChat(url(), theirs.key, hello())).status).toBe(200);
      const removed = await readJson(await admin.send("DELETE", `/orgs/${orgId}/members/${await userId(leaving)}`));
      expect(removed.revokedKeys.map((k: { id: string; status: string }) => [k.id, k.status])).toEqual([[theirId, "revoked"]]);
      expect((await postChat(url(), theirs.key, hello())).status).toBe(401);
      expect((await postChat(url(), shared.key, hello())).status).toBe(200);
      expect((await leaving.send("GET", `/account?org=${orgId}`)).status).toBe(404);
      await expectBooksClosed(gateway().store, orgId);
    });
  });
});
