// A team of three in the dashboard: the owner creates an organization from the switcher and
// invites an admin and a member by e-mail (the links read from the SMTP server), they accept on
// the landing page, the owner moves credit in and caps the member, the member's navigation
// keeps to what it may use, keys show their owners, usage its members, and a removal revokes
// the member's keys. At 390 px and 1280 px nothing overflows. Then the console's view of it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { linkToken } from "../support/mail.ts";
import { signInOperator } from "../support/operator.ts";
import { PASSWORD, signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { layoutProblems, moneyProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

describeInBrowser("an organization in the dashboard: owner, admin and a capped member", () => {
  let upstream: FakeUpstream;
  let smtp: FakeSmtp;
  let gateway: TestGateway;
  let browser: Browser;
  let owner: SignedIn;
  let admin: SignedIn;
  let member: SignedIn;
  let orgId = "";
  const tabs: Tab[] = [];

  beforeAll(async () => {
    upstream = startFakeUpstream();
    smtp = await startFakeSmtp();
    gateway = await startGateway("sqlite", { ...providerEnv(upstream), SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
    browser = await launchChromium();
    [owner, admin, member] = await Promise.all([signUpUser(gateway.url), signUpUser(gateway.url), signUpUser(gateway.url)]);
    await verifyEmail(gateway.store, owner.email, "20");
    await verifyEmail(gateway.store, admin.email);
    await verifyEmail(gateway.store, member.email);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.stop();
    await smtp?.stop();
  });

  /** A tab signed in as `who` (none: signed out), at `size`. */
  const open = async (who: SignedIn | null, size = DESKTOP): Promise<Page> => {
    const tab = await openTab(browser, size);
    tabs.push(tab);
    if (who) {
      await signIn(tab, who);
    }
    tab.page.setDefaultTimeout(8_000);
    return tab.page;
  };
  const loaded = (page: Page) => page.locator("#page:not([aria-busy])").waitFor();
  const goTo = async (page: Page, path: string) => {
    const res = await page.goto(`${gateway.url}${path}`);
    await loaded(page);
    return res;
  };
  const inOrg = (path: string) => `${path}${path.includes("?") ? "&" : "?"}org=${orgId}`;
  const navLinks = (page: Page) => page.locator(".site-header nav a").allTextContents();

  test("the owner creates an organization from the switcher and lands in it", async () => {
    const page = await open(owner);
    await goTo(page, "/dashboard");
    await page.locator(".account-menu summary").click();
    await page.getByRole("button", { name: "New organization…" }).click();
    await page.getByRole("dialog").getByLabel("Name").fill("Acme");
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.waitForURL(/\?org=/);
    await loaded(page);
    orgId = new URL(page.url()).searchParams.get("org")!;
    expect(await page.locator(".account-menu summary").textContent()).toBe("Account: Acme (Owner)");
    await page.getByText("Acting for Acme as an owner.").waitFor();
    expect(await navLinks(page)).toContain("Members");
    for (const href of await page.locator(".site-header nav a").evaluateAll((all) => all.map((a) => a.getAttribute("href")))) {
      expect(href).toContain(`?org=${orgId}`);
    }
    // Back to the personal account: the same page, no Members.
    await page.locator(".account-menu summary").click();
    await page.getByRole("link", { name: "Personal" }).click();
    await page.waitForURL((url) => !url.search.includes("org="));
    await loaded(page);
    expect(await navLinks(page)).not.toContain("Members");
  });

  test("the owner invites an admin and a member, and revokes a mistaken invitation", async () => {
    const page = await open(owner);
    await goTo(page, inOrg("/dashboard/members"));
    for (const [email, role] of [[admin.email, "Admin"], [member.email, "Member"], ["typo@example.com", "Member"]] as const) {
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Role").selectOption({ label: role });
      await page.getByRole("button", { name: "Send invitation" }).click();
      await page.getByText(`Sent an invitation to ${email}.`).waitFor();
    }
    const pending = page.locator("table", { hasText: "Invitations waiting" });
    expect(await pending.locator("tbody tr").count()).toBe(3);
    // A resend mails a new link; the first one dies.
    await page.getByRole("button", { name: `Resend to ${admin.email}` }).click();
    await page.getByText(`Sent a new link to ${admin.email}; the earlier one no longer works.`).waitFor();
    await page.getByRole("button", { name: "Revoke the invitation to typo@example.com" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke invitation" }).click();
    await page.getByText("Revoked the invitation to typo@example.com.").waitFor();
    expect(await pending.locator("tbody tr").count()).toBe(2);
    await screenshot(page, "orgs-members-owner");
  });

  test("signed out, the invitation's link goes through sign-in and back; accepting opens the organization", async () => {
    const token = await linkToken(smtp, admin.email, "invitations/accept", 2);
    const page = await open(null);
    await page.goto(`${gateway.url}/dashboard/invitations/accept?token=${token}`);
    await page.waitForURL(/\/dashboard\/signin\?next=/);
    await loaded(page);
    await page.getByText("Sign in with the e-mail address the invitation was sent to; you accept it next.").waitFor();
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard\/invitations\/accept\?token=/);
    await loaded(page);
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await page.waitForURL(new RegExp(`/dashboard\\?org=${orgId}$`));
    await loaded(page);
    await page.getByText("Acting for Acme as an admin.").waitFor();
  });

  test("the landing page says why an invitation is refused, in words", async () => {
    const token = await linkToken(smtp, member.email, "invitations/accept");
    // The admin (signed in) opens the member's link: another address.
    const page = await open(admin);
    await goTo(page, `/dashboard/invitations/accept?token=${token}`);
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await page.getByText("This invitation is for another e-mail address.", { exact: false }).waitFor();
    // The admin's first link, replaced by the resend.
    await goTo(page, `/dashboard/invitations/accept?token=${await linkToken(smtp, admin.email, "invitations/accept", 1)}`);
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await page.getByText("This invitation link is invalid, already used or expired.", { exact: false }).waitFor();
    // Someone who has not confirmed their address is told to, first.
    const unconfirmed = await signUpUser(gateway.url);
    expect((await owner.send("POST", `/orgs/${orgId}/invitations`, { email: unconfirmed.email })).status).toBe(201);
    const theirs = await open(unconfirmed);
    await goTo(theirs, `/dashboard/invitations/accept?token=${await linkToken(smtp, unconfirmed.email, "invitations/accept")}`);
    await theirs.getByRole("button", { name: "Accept invitation" }).click();
    await theirs.getByText("Confirm your e-mail address first", { exact: false }).waitFor();
    // The member accepts its own.
    const mine = await open(member);
    await goTo(mine, `/dashboard/invitations/accept?token=${token}`);
    await mine.getByRole("button", { name: "Accept invitation" }).click();
    await mine.waitForURL(new RegExp(`\\?org=${orgId}$`));
    await loaded(mine);
    await mine.getByText("Acting for Acme as a member.").waitFor();
    // Twice: already a member.
    await goTo(mine, `/dashboard/invitations/accept?token=${token}`);
    await mine.getByRole("button", { name: "Accept invitation" }).click();
    await mine.getByText("This invitation link is invalid", { exact: false }).waitFor();
  });

  test("the owner moves credit in once per submission and caps the member's day", async () => {
    const page = await open(owner);
    await goTo(page, inOrg("/dashboard"));
    await page.getByLabel("Amount (USD)").fill("6");
    await page.getByRole("button", { name: "Move credit in" }).dblclick();
    await page.getByText("Moved $6.00 into Acme.", { exact: false }).waitFor();
    const org = await readJson(await owner.send("GET", `/account?org=${orgId}`));
    expect(org.balanceUsd).toBe("6.000000");
    await goTo(page, inOrg("/dashboard/members"));
    await page.getByRole("button", { name: `Edit ${member.email}` }).click();
    await page.getByRole("dialog").getByLabel("Daily spend cap (USD)").fill("0.5");
    await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
    await page.getByText(`Saved the changes to ${member.email}.`).waitFor();
    const row = page.locator("tbody tr", { hasText: member.email });
    expect(await row.locator("td").nth(2).textContent()).toBe("$0.50");
    // The last owner cannot make itself a member: said in the dialog, beside the cause.
    await page.getByRole("button", { name: `Edit ${owner.email}` }).click();
    await page.getByRole("dialog").getByLabel("Role").selectOption("member");
    await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
    await page.getByRole("dialog").getByText("An organization must keep an owner", { exact: false }).waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    // Nor leave: it is not offered, and its row says why.
    expect(await page.getByRole("button", { name: `Leave organization ${owner.email}` }).count()).toBe(0);
    await page.locator("tbody tr", { hasText: owner.email }).getByText("You are its only owner", { exact: false }).waitFor();
  });

  test("the organization's settings say who its low-balance e-mail goes to", async () => {
    const page = await open(owner);
    await goTo(page, inOrg("/dashboard/settings"));
    await page.getByText("We e-mail Acme's first owner when its balance falls below this amount.").waitFor();
  });

  test("a member sees what it may use: no top-up, purchases or settings; a clear word when opened directly", async () => {
    const page = await open(member);
    await goTo(page, inOrg("/dashboard/members"));
    const links = await navLinks(page);
    for (const hiddenLink of ["Top up", "Purchases", "Settings"]) expect(links).not.toContain(hiddenLink);
    expect(links).toContain("Members");
    expect(await page.getByRole("button", { name: /^Edit/ }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Leave organization/ }).count()).toBe(1);
    expect(await page.getByText("Invite someone").count()).toBe(0);
    const res = await goTo(page, inOrg("/dashboard/topup"));
    expect(res?.status()).toBe(403);
    await page.getByText("Only owners and admins of Acme can buy credit packs for it.", { exact: false }).waitFor();
    await goTo(page, inOrg("/dashboard"));
    await page.getByText("Your keys may spend $0.50 a day here.").waitFor();
    expect(await page.getByRole("link", { name: "Top up" }).count()).toBe(0);
    await goTo(page, inOrg("/dashboard/security"));
    await page.getByText("Only owners and admins of Acme can see its activity log.").waitFor();
    await screenshot(page, "orgs-member-security");
  });

  test("keys show their owners; an admin makes an organization key, a member its own", async () => {
    const memberPage = await open(member);
    await goTo(memberPage, inOrg("/dashboard/keys"));
    expect(await memberPage.getByRole("button", { name: "Create management key" }).count()).toBe(0);
    await memberPage.getByRole("button", { name: "Create key" }).click();
    expect(await memberPage.getByLabel("Organization key").count()).toBe(0);
    await memberPage.getByLabel("Name").first().fill("Member laptop");
    await memberPage.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    await memberPage.getByText("Created Member laptop.").waitFor();
    const adminPage = await open(admin);
    await goTo(adminPage, inOrg("/dashboard/keys"));
    await adminPage.getByRole("button", { name: "Create key" }).click();
    await adminPage.getByLabel("Name").first().fill("Shared backend");
    await adminPage.getByLabel("Organization key").check();
    await adminPage.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    await adminPage.getByText("Created Shared backend.").waitFor();
    const ownerOf = async (name: string) =>
      (await adminPage.locator("article", { hasText: name }).locator(".facts div", { hasText: "Owner" }).locator("dd").textContent());
    expect(await ownerOf("Member laptop")).toBe(member.email);
    expect(await ownerOf("Shared backend")).toBe("Organization");
  });

  test("usage names the member of each request; owners filter by member", async () => {
    const { key: memberKey } = await readJson(await member.send("POST", `/keys/generate?org=${orgId}`, { name: "Member script" }));
    const { key: orgKey } = await readJson(await owner.send("POST", `/keys/generate?org=${orgId}`, { name: "Org script", organizationKey: true }));
    expect((await postChat(gateway.url, memberKey, hello())).status).toBe(200);
    expect((await postChat(gateway.url, orgKey, hello())).status).toBe(200);
    const page = await open(owner);
    await goTo(page, inOrg("/dashboard/usage"));
    const members = () => page.locator("table.usage tbody tr td:nth-child(4)").allTextContents();
    expect((await members()).sort()).toEqual([member.email, "Organization"].sort());
    await page.getByLabel("Member").selectOption({ label: member.email });
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/member=/);
    await loaded(page);
    expect(new URL(page.url()).searchParams.get("org")).toBe(orgId);
    expect(await members()).toEqual([member.email]);
    const mine = await open(member);
    await goTo(mine, inOrg("/dashboard/usage"));
    expect(await mine.locator("table.usage tbody tr td:nth-child(4)").allTextContents()).toEqual([member.email]);
    expect(await mine.getByLabel("Member").count()).toBe(0);
    // A member downloads its own rows, as the table shows them.
    const csv = mine.getByRole("link", { name: /Download CSV/ });
    expect(await csv.count()).toBe(1);
    const exported = await mine.evaluate(async (href) => (await fetch(href)).text(), (await csv.getAttribute("href"))!);
    const rows = exported.trimEnd().split("\r\n").slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.includes(`,${member.email},`))).toBe(true);
  });

  for (const size of [PHONE, DESKTOP]) {
    test(`at ${size.width} px nothing overflows the organization's pages, and every link of the navigation is in sight`, async () => {
      const page = await open(owner, size);
      for (const path of ["/dashboard", "/dashboard/members", "/dashboard/keys", "/dashboard/usage"]) {
        await goTo(page, inOrg(path));
        await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
        expect({ path, problems: await layoutProblems(page) }).toEqual({ path, problems: [] });
        expect({ path, money: await moneyProblems(page) }).toEqual({ path, money: [] });
        // On a desktop the usage, Member column and all, is still a table, not stacked rows.
        if (size === DESKTOP && path.endsWith("usage")) expect(await page.locator("table.usage.stacked").count()).toBe(0);
        const outOfSight = await page.locator(".site-header nav a").evaluateAll((all) => all
          .filter((a) => a.getBoundingClientRect().left < 0 || a.getBoundingClientRect().right > document.documentElement.clientWidth)
          .map((a) => a.textContent));
        expect({ path, outOfSight }).toEqual({ path, outOfSight: [] });
        await screenshot(page, `orgs-${size.width}-${path.replace(/^\/dashboard\/?/, "") || "overview"}`);
      }
      // The switcher's menu, open, stays on the screen; Escape closes it and gives the focus back.
      await page.locator(".account-menu summary").click();
      const menu = await page.locator(".account-menu ul").boundingBox();
      expect(menu!.x).toBeGreaterThanOrEqual(0);
      expect(menu!.x + menu!.width).toBeLessThanOrEqual(size.width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await screenshot(page, `orgs-${size.width}-switcher-open`);
      await page.keyboard.press("Escape");
      expect(await page.locator(".account-menu").getAttribute("open")).toBeNull();
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SUMMARY");
    });
  }

  test("the owner removes the member after confirming; its keys are revoked and named", async () => {
    const page = await open(owner);
    await goTo(page, inOrg("/dashboard/members"));
    await page.getByRole("button", { name: `Remove ${member.email}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
    const notice = page.getByText(`Removed ${member.email}. Keys revoked:`, { exact: false });
    await notice.waitFor();
    expect(await notice.textContent()).toContain("Member laptop");
    expect(await page.locator("tbody tr", { hasText: member.email }).count()).toBe(0);
    // The member's page for the organization now says it is not one of its members.
    const gone = await open(member);
    const res = await goTo(gone, inOrg("/dashboard"));
    expect(res?.status()).toBe(404);
    await gone.getByText("you are not one of its members", { exact: false }).waitFor();
  });

  test("the console lists the organization, shows its members and makes the admin an owner", async () => {
    const operator = await signInOperator(gateway.url, gateway.store);
    const page = await open(operator);
    await goTo(page, "/dashboard/admin/orgs");
    await page.getByRole("link", { name: "Acme" }).click();
    await page.waitForURL(/admin\/orgs\?id=/);
    await loaded(page);
    await page.getByRole("button", { name: `Make owner ${admin.email}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Make owner" }).click();
    await page.getByText(`${admin.email} is now an owner of Acme.`).waitFor();
    expect(await page.locator("tbody tr", { hasText: admin.email }).locator("td").nth(1).textContent()).toBe("Owner");
    expect(await layoutProblems(page)).toEqual([]);
  });

  test("a second owner leaves from its own row and lands on its personal account", async () => {
    const page = await open(admin);
    await goTo(page, inOrg("/dashboard/members"));
    await page.getByRole("button", { name: `Leave organization ${admin.email}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Leave organization" }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard" && !url.search.includes("org="));
    expect((await readJson(await admin.send("GET", "/orgs"))).organizations).toEqual([]);
  });

  test("an owner renames an organization, and deletes it once its balance is zero", async () => {
    const page = await open(owner);
    // Acme holds credit: the refusal sits beside the button.
    await goTo(page, inOrg("/dashboard/members"));
    await page.getByRole("button", { name: "Delete organization" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete organization" }).click();
    await page.getByText("An organization can be deleted only when its balance is zero", { exact: false }).waitFor();
    const { id } = await readJson(await owner.send("POST", "/orgs", { name: "Scratch" }));
    await goTo(page, `/dashboard/members?org=${id}`);
    await page.locator("#org-settings-heading ~ form").getByLabel("Name").fill("Scratch Two");
    await page.getByRole("button", { name: "Rename" }).click();
    await page.waitForFunction(() => document.querySelector(".account-menu summary")?.textContent?.includes("Scratch Two"));
    await page.getByRole("button", { name: "Delete organization" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete organization" }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard" && !url.search.includes("org="));
    expect((await readJson(await owner.send("GET", "/orgs"))).organizations.map((o: { name: string }) => o.name)).toEqual(["Acme"]);
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
