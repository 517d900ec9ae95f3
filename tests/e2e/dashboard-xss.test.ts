// Stored XSS: names a customer or an operator chooses (a key's, an organization's, an
// invitation's, a model's display name) are shown as text on every dashboard page that shows
// them, never as markup. Each is set to markup that would set window.__xss if it ran; every page
// is opened in Chromium and must show the markup as text, build no element from it and run nothing.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { linkToken } from "../support/mail.ts";
import { signInOperator } from "../support/operator.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { exec } from "../../src/db/sql.ts";
import { describeInBrowser, launchChromium, openTab, signIn } from "./support/browser.ts";

setDefaultTimeout(120_000);

const PAYLOADS = ["<img src=x onerror=window.__xss=1>", "\"><script>window.__xss=1</script>"];
const MODELS = ["gpt-4.1-nano", "gpt-5.5"];

describeInBrowser("names chosen by customers and operators are shown as text on every dashboard page", () => {
  let upstream: FakeUpstream;
  let smtp: FakeSmtp;
  let gateway: TestGateway;
  let browser: Browser;
  let owner: SignedIn;
  let operator: SignedIn;
  const invitees: { who: SignedIn; token: string }[] = [];
  const orgIds: string[] = [];

  beforeAll(async () => {
    upstream = startFakeUpstream();
    smtp = await startFakeSmtp();
    gateway = await startGateway("sqlite", { ...providerEnv(upstream), SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
    browser = await launchChromium();
    owner = await signUpUser(gateway.url);
    await verifyEmail(gateway.store, owner.email, "20");
    operator = await signInOperator(gateway.url, gateway.store);
    for (const [i, name] of PAYLOADS.entries()) {
      // The model's display name through the store's own table, as an operator's catalog edit would leave it.
      await gateway.db.run(exec("UPDATE models SET display_name = ? WHERE id = ?", name, MODELS[i]));
      const { key } = await readJson(await owner.send("POST", "/keys/generate", { name }));
      expect((await postChat(gateway.url, key, hello(MODELS[i]))).status).toBe(200);
      const org = await readJson(await owner.send("POST", "/orgs", { name }));
      orgIds.push(org.id);
      expect((await owner.send("POST", `/keys/generate?org=${org.id}`, { name })).ok).toBe(true);
      const invitee = await signUpUser(gateway.url, `x-${process.pid}-${i}@example.com`);
      expect((await owner.send("POST", `/orgs/${org.id}/invitations`, { email: invitee.email, role: "member" })).status).toBe(201);
      invitees.push({ who: invitee, token: await linkToken(smtp, invitee.email, "invitations/accept") });
    }
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.stop();
    await smtp?.stop();
  });

  /** Opens `path` signed in as `who` and answers what the page made of the names. */
  const visit = async (who: SignedIn, path: string, act?: (page: Page) => Promise<void>) => {
    const tab = await openTab(browser);
    await signIn(tab, who);
    const page: Page = tab.page;
    await page.goto(`${gateway.url}${path}`);
    await page.locator("#page:not([aria-busy])").waitFor();
    if (act) await act(page);
    // Tables and lists fill in after the page's own data; give the network a moment to settle.
    await page.waitForLoadState("networkidle");
    const seen = await page.evaluate((payloads) => ({
      xss: (window as unknown as { __xss?: unknown }).__xss,
      injected: document.querySelectorAll("img[src='x'], body script:not([src]):not([type='application/json'])").length,
      shown: payloads.filter((payload) => document.body.innerText.includes(payload)),
    }), PAYLOADS);
    await tab.context.close();
    return seen;
  };

  test("the personal overview runs nothing", async () => {
    expect(await visit(owner, "/dashboard")).toMatchObject({ xss: undefined, injected: 0 });
  });

  const customerPages: [string, () => string][] = [
    ["the keys page", () => "/dashboard/keys"],
    ["the usage page", () => "/dashboard/usage"],
    ["the models page", () => "/dashboard/models"],
    ["an organization's overview (the switcher names it)", () => `/dashboard?org=${orgIds[0]}`],
    ["an organization's keys page", () => `/dashboard/keys?org=${orgIds[1]}`],
    ["an organization's members page (its invitations)", () => `/dashboard/members?org=${orgIds[0]}`],
  ];
  test.each(customerPages)("%s shows them as text and runs nothing", async (_title, path) => {
    const seen = await visit(owner, path());
    expect({ xss: seen.xss, injected: seen.injected }).toEqual({ xss: undefined, injected: 0 });
    expect(seen.shown.length).toBeGreaterThan(0);
  });

  test("the invitation's landing page, accepted, shows the organization's name as text and runs nothing", async () => {
    for (const [i, { who, token }] of invitees.entries()) {
      await verifyEmail(gateway.store, who.email);
      const seen = await visit(who, `/dashboard/invitations/accept?token=${token}`, async (page) => {
        await page.getByRole("button", { name: "Accept invitation" }).click();
        await page.waitForURL(/\?org=/);
        await page.locator("#page:not([aria-busy])").waitFor();
      });
      expect(seen).toEqual({ xss: undefined, injected: 0, shown: [PAYLOADS[i]!] });
    }
  });

  const consolePages = ["/dashboard/admin", "/dashboard/admin/accounts", "/dashboard/admin/catalog", "/dashboard/admin/orgs", "/dashboard/admin/audit"];
  test.each(consolePages)("the console's %s runs nothing", async (path) => {
    const seen = await visit(operator, path);
    expect({ xss: seen.xss, injected: seen.injected }).toEqual({ xss: undefined, injected: 0 });
    // The catalog lists models by ID; the organizations' page names them.
    if (path.endsWith("orgs")) expect(seen.shown).toEqual(PAYLOADS);
  });
});
