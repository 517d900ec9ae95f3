// Forms whose inputs stay in line, the security page (sessions after a password change,
// recovery codes to copy and download, sign-ins by browser, a code-sized code input), the
// usage page's filtered CSV and match count, and the verification page's answers.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { totpCode } from "../../src/core/accounts/totp.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { linkToken } from "../support/mail.ts";
import { signInOperator } from "../support/operator.ts";
import { PASSWORD, request, signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { customerWithUsage } from "./support/customer.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";

setDefaultTimeout(30_000);

const CHROME_ON_LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

describeInBrowser("the account pages' forms, security, usage and verification, polished", () => {
  let smtp: FakeSmtp;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let browser: Browser;
  let customer: SignedIn;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    smtp = await startFakeSmtp();
    upstream = startFakeUpstream();
    gateway = await startGateway("sqlite", { ...providerEnv(upstream), SMTP_URL: smtp.url });
    browser = await launchChromium();
    customer = await customerWithUsage(gateway);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.stop();
    await smtp?.stop();
  });

  const open = async (as: SignedIn | null, path: string): Promise<Page> => {
    const tab = await openTab(browser);
    tabs.push(tab);
    if (as) {
      await signIn(tab, as);
    }
    tab.page.setDefaultTimeout(8_000);
    await tab.page.goto(`${gateway.url}${path}`);
    await tab.page.locator("#page:not([aria-busy])").waitFor();
    return tab.page;
  };
  /** The top of every input in the first row of the form's grid of fields (the rows below may move down; that row may not). */
  const firstRowTops = (form: ReturnType<Page["locator"]>) =>
    form.locator(".fields input").evaluateAll((inputs) => {
      // From the form's top: a dialog (the key form's) centres itself again as it grows.
      const tops = inputs.map((i) => Math.round(i.getBoundingClientRect().top - i.closest("form")!.getBoundingClientRect().top));
      const row = inputs.filter((i) => i.parentElement!.offsetTop === inputs[0]!.parentElement!.offsetTop).length;
      return tops.slice(0, row);
    });

  test("an error under one field moves no input of its row (the key form and the grant form)", async () => {
    const page = await open(customer, "/dashboard/keys");
    await page.getByRole("button", { name: "Create key" }).click();
    const form = page.getByRole("dialog").locator("form");
    const before = await firstRowTops(form);
    expect(before.length).toBeGreaterThan(1);
    await page.getByLabel("Expires").fill("2001-01-01T00:00");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    await page.locator(".field-error:not([hidden])").first().waitFor();
    expect(await firstRowTops(form)).toEqual(before);
    const operator = await signInOperator(gateway.url, gateway.store);
    const console = await open(operator, `/dashboard/admin/accounts?email=${encodeURIComponent(customer.email)}`);
    const grant = console.locator("form", { has: console.getByLabel("Amount (USD)") });
    const rows = await firstRowTops(grant);
    expect(rows.length).toBe(2);
    await console.getByLabel("Amount (USD)").fill("x");
    await console.getByRole("button", { name: "Grant credits" }).click();
    await grant.locator(".field-error:not([hidden])").first().waitFor();
    expect(await firstRowTops(grant)).toEqual(rows);
    await screenshot(console, "grant-form-error");
  });

  test("the usage page counts the matches, its CSV carries the filters, and dates and times read ISO with their zone", async () => {
    const page = await open(customer, "/dashboard/usage?model=gpt-4.1-nano");
    await page.getByText("2 requests match these filters.").waitFor();
    const link = page.getByRole("link", { name: "Download CSV of these requests" });
    const href = await link.evaluate((a) => (a as HTMLAnchorElement).href);
    expect(new URL(href).searchParams.get("model")).toBe("gpt-4.1-nano");
    const csv = await (await page.request.get(href)).text();
    const rows = csv.trim().split("\r\n").slice(1);
    expect(rows.map((r) => r.split(",")[1])).toEqual(["gpt-4.1-nano", "gpt-4.1-nano"]);
    expect(await page.getByLabel("From (UTC day)").getAttribute("placeholder")).toBe("YYYY-MM-DD");
    expect(await page.getByLabel("From (UTC day)").getAttribute("type")).toBe("text");
    expect(await page.locator("table.usage thead th").first().textContent()).toBe("Time (UTC)");
    expect(await page.locator("table.usage tbody td").first().textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await page.goto(`${gateway.url}/dashboard/usage`);
    await page.getByText("3 requests in all.").waitFor();
  });

  test("security: a password change empties the other sessions at once; sign-ins name the browser; codes fit their input, and copy and download", async () => {
    await request(gateway.url, "POST", "/auth/login", { email: customer.email, password: PASSWORD }, { "user-agent": CHROME_ON_LINUX });
    const tab = await openTab(browser);
    tabs.push(tab);
    await tab.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await signIn(tab, customer);
    const { page } = tab;
    page.setDefaultTimeout(8_000);
    await page.goto(`${gateway.url}/dashboard/security`);
    await page.locator("#page:not([aria-busy])").waitFor();
    const activity = page.getByRole("region", { name: "Account activity" });
    const signedIn = activity.locator("tr", { hasText: "Signed in" }).first().locator("td.detail span");
    expect([await signedIn.textContent(), await signedIn.getAttribute("title")]).toEqual(["Chrome on Linux", CHROME_ON_LINUX]);
    const sessions = page.locator(".session");
    expect(await sessions.count()).toBe(2);
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel("New password", { exact: true }).fill("a new passphrase here");
    await page.getByLabel("Repeat the new password").fill("a new passphrase here");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Every other device was signed out.").waitFor();
    expect(await sessions.count()).toBe(1);
    expect(await page.getByText("You are signed in on this device only.").count()).toBe(1);

    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    const code = page.getByLabel("Code from the app");
    expect((await code.boundingBox())!.width).toBeLessThan(140);
    const secret = (await page.locator("code.secret-value").textContent())!;
    await code.fill(totpCode(secret, Date.now()));
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    // allTextContents does not wait: the codes appear once the server has answered.
    await page.locator(".recovery-codes code").first().waitFor();
    const codes = await page.locator(".recovery-codes code").allTextContents();
    expect(codes.length).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Copy codes" }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(codes.join("\n"));
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download as a text file" }).click()]);
    expect(download.suggestedFilename()).toBe("gateway-recovery-codes.txt");
    expect(await Bun.file((await download.path())!).text()).toContain(codes.join("\n"));
    await screenshot(page, "recovery-codes");
  });

  test("verification: the amount added, then 'already confirmed' for the same link, and no banner promised to a visitor", async () => {
    const newcomer = await signUpUser(gateway.url);
    const token = await linkToken(smtp, newcomer.email, "verify");
    const page = await open(newcomer, `/dashboard/verify?token=${token}`);
    await page.getByRole("button", { name: "Confirm my e-mail address" }).click();
    const notice = page.locator(".form-status .notice");
    await page.getByText("Your e-mail address is confirmed.").waitFor();
    expect(await notice.textContent()).toBe("Your e-mail address is confirmed. $5.00 of free credits added to your balance. Open your dashboard");
    await page.goto(`${gateway.url}/dashboard/verify?token=${token}`);
    await page.getByRole("button", { name: "Confirm my e-mail address" }).click();
    await page.getByText("Your e-mail address is already confirmed.").waitFor();
    expect(await notice.textContent()).toBe("Your e-mail address is already confirmed. Open your dashboard");
    const visitor = await open(null, `/dashboard/verify?token=${token}`);
    await visitor.getByRole("button", { name: "Confirm my e-mail address" }).click();
    await visitor.locator(".notice.error").waitFor();
    expect(await visitor.locator(".notice.error").textContent()).not.toContain("banner");
    expect(await visitor.getByRole("link", { name: "Sign in" }).count()).toBe(1);
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
