// Invitations as a relay: each is an e-mail from the gateway to any address, carrying a name the
// inviter chose. They are limited per person and per organization (counted in the database), and
// the name is written so that it cannot pass for a link.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { readJson } from "../support/http.ts";
import { linkToken, mailsTo } from "../support/mail.ts";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

const HOURLY = /^Too many invitations: (you have|this organization has) sent 25 in the last hour, the most allowed\. Try again in (59|60) minutes \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\.$/;

describeEachDialect("invitations, rate-limited", (dialect) => {
  const gateway = useGateway(dialect, { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
  const url = () => gateway().url;
  let n = 0;
  const address = () => `invitee-${dialect}-${++n}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const person = async () => {
    const browser = await signUpUser(url());
    await verifyEmail(gateway().store, browser.email);
    return browser;
  };
  const newOrg = async (owner: Browser, name = "Acme") => (await readJson(await owner.send("POST", "/orgs", { name }))).id as string;
  const invite = (who: Browser, orgId: string, email = address(), role = "member") => who.send("POST", `/orgs/${orgId}/invitations`, { email, role });
  const pending = async (who: Browser, orgId: string) => (await readJson(await who.send("GET", `/orgs/${orgId}/invitations`))).invitations.length;

  let owner: Browser;
  let orgId: string;
  beforeAll(async () => {
    owner = await person();
    orgId = await newOrg(owner);
  });

  test("a person's 26th invitation in an hour is 429 with Retry-After and says when; nothing is sent", async () => {
    for (let i = 0; i < 25; i++) expect((await invite(owner, orgId)).status).toBe(201);
    const refused = await invite(owner, orgId);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const { error } = await readJson(refused);
    expect(error).toMatch(HOURLY);
    expect(error).toStartWith("Too many invitations: you have sent 25");
    expect((await invite(owner, orgId)).status).toBe(429);
    expect(await pending(owner, orgId)).toBe(25);
  }, 30_000);

  test("the person's limit holds in another organization of theirs, and for resends", async () => {
    const other = await newOrg(owner, "Acme two");
    const refused = await invite(owner, other);
    expect(refused.status).toBe(429);
    expect((await readJson(refused)).error).toStartWith("Too many invitations: you have sent 25 in the last hour");
    const [first] = (await readJson(await owner.send("GET", `/orgs/${orgId}/invitations`))).invitations;
    const resent = await owner.send("POST", `/orgs/${orgId}/invitations/${first.id}/resend`);
    expect(resent.status).toBe(429);
    expect(resent.headers.get("retry-after")).not.toBeNull();
  });

  test("an organization's 26th invitation in an hour is 429 whoever of its admins sends it", async () => {
    const boss = await person();
    const team = await newOrg(boss, "Team");
    const deputy = await person();
    expect((await invite(boss, team, deputy.email, "admin")).status).toBe(201);
    const token = await linkToken(smtp, deputy.email, "invitations/accept");
    expect((await deputy.send("POST", "/invitations/accept", { token })).status).toBe(200);
    for (let i = 0; i < 12; i++) expect((await invite(boss, team)).status).toBe(201);
    for (let i = 0; i < 12; i++) expect((await invite(deputy, team)).status).toBe(201);
    const refused = await invite(deputy, team);
    expect(refused.status).toBe(429);
    expect((await readJson(refused)).error).toMatch(HOURLY);
    expect((await readJson(await invite(boss, team))).error).toStartWith("Too many invitations: this organization has sent 25 in the last hour");
    // The deputy's own count (12) is far from its limit: elsewhere it still invites.
    expect((await invite(deputy, await newOrg(deputy, "Side"))).status).toBe(201);
  }, 30_000);

  test("the e-mail gives the organization's name as quoted text that is no link, and says who chose it", async () => {
    const boss = await person();
    const team = await newOrg(boss, "Refund: log in at https://pay.example.com/x or www.pay.example now");
    const invitee = address();
    expect((await invite(boss, team, invitee)).status).toBe(201);
    await linkToken(smtp, invitee, "invitations/accept");
    const [mail] = mailsTo(smtp, invitee);
    const quoted = '"Refund: log in at https[:]//pay[.]example[.]com/x or www[.]pay[.]example now"';
    expect(mail!.text).toContain(`join the organization ${quoted}`);
    expect(mail!.text).toContain("name was chosen by whoever invited you");
    expect(mail!.raw).toContain("Subject: You are invited to join an organization on the gateway");
    expect(mail!.raw).not.toContain("pay.example");
    expect(mail!.raw).not.toContain("https://pay");
    expect(mail!.raw.toLowerCase()).not.toContain("text/html");
  });
});
