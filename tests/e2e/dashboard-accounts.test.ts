// The account pages in headless Chromium, driven from the keyboard, at desktop and phone width:
// forgot and reset through the real e-mail, Settings → Security (password, sessions, two-factor
// set-up with its QR code and recovery codes, the activity log) and signing in with a code.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { totpCode } from "../../src/core/accounts/totp.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { linkToken } from "../support/mail.ts";
import { logInUser, PASSWORD, signUpUser, type Browser as SignedInUser } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, type Tab } from "./support/browser.ts";

setDefaultTimeout(60_000);

const PHONE = { width: 375, height: 812 };
const NEW_PASSWORD = "keyboard only passphrase";
const CHANGED_PASSWORD = "changed from the security page";

describeInBrowser("the account pages", () => {
  let smtp: FakeSmtp;
  let gateway: TestGateway;
  let browser: Browser;
  let user: SignedInUser;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    smtp = await startFakeSmtp();
    gateway = await startGateway("sqlite", { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
    browser = await launchChromium();
    user = await signUpUser(gateway.url);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await smtp?.stop();
  });

  const open = async (options: { width?: number; height?: number } = {}): Promise<Page> => {
    const tab = await openTab(browser, options);
    tabs.push(tab);
    return tab.page;
  };
  const ready = (page: Page) => page.locator("#page:not([aria-busy])").waitFor();
  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
  /** Signs in through the page, from the keyboard; `code` when the account asks for one. */
  const signIn = async (page: Page, password: string, code?: string) => {
    await page.goto(`${gateway.url}/dashboard/signin`);
    await ready(page);
    await page.getByLabel("Email").focus();
    await page.keyboard.type(user.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");
    if (code !== undefined) {
      await page.getByText("Your account has two-factor sign-in").waitFor();
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe("code");
      await page.keyboard.type(code);
      await page.keyboard.press("Enter");
    }
    await page.waitForURL(`${gateway.url}/dashboard`);
    await ready(page);
  };

  test("the e-mail's verification link: the token leaves the address bar, the focused button confirms, the banner goes", async () => {
    const page = await open();
    await signIn(page, PASSWORD);
    await page.getByRole("region", { name: "E-mail confirmation" }).waitFor();
    await screenshot(page, "overview-unverified");
    const token = await linkToken(smtp, user.email, "verify");
    await page.goto(`${gateway.url}/dashboard/verify?token=${token}`);
    await ready(page);
    expect(page.url()).toBe(`${gateway.url}/dashboard/verify`);
    await page.keyboard.press("Enter");
    await page.getByText("Your e-mail address is confirmed.").waitFor();
    await screenshot(page, "verify-done");
    await page.getByRole("link", { name: "Open your dashboard" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(`${gateway.url}/dashboard`);
    await ready(page);
    expect(await page.getByRole("region", { name: "E-mail confirmation" }).count()).toBe(0);
    expect(await page.locator(".stat-value").first().textContent()).toBe("$5.00");
  });

  test("forgot and reset, from the sign-in page's link to the new password, by keyboard on a phone", async () => {
    const page = await open(PHONE);
    await page.goto(`${gateway.url}/dashboard/signin`);
    await ready(page);
    await page.getByRole("link", { name: "Forgot your password?" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(`${gateway.url}/dashboard/forgot`);
    await ready(page);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.type(user.email);
    await page.keyboard.press("Enter");
    await page.getByText(`If ${user.email} has an account, a link to choose a new password is on its way.`).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, "phone-forgot-sent");

    const token = await linkToken(smtp, user.email, "reset");
    await page.goto(`${gateway.url}/dashboard/reset?token=${token}`);
    await ready(page);
    expect(page.url()).toBe(`${gateway.url}/dashboard/reset`);
    await page.getByLabel("New password", { exact: true }).focus();
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not the same");
    await page.keyboard.press("Enter");
    await page.getByText("The two passwords differ").waitFor();
    await page.keyboard.press("Control+A");
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByText("Your password is changed, and every device was signed out.").waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, "phone-reset-done");
    expect((await user.send("GET", "/account")).status).toBe(401);
    user = await logInUser(gateway.url, user.email, NEW_PASSWORD);
  });

  test("Settings → Security: change the password, see the devices, sign another out", async () => {
    const page = await open();
    await signIn(page, NEW_PASSWORD);
    await page.goto(`${gateway.url}/dashboard/settings`);
    await ready(page);
    await page.getByRole("link", { name: "Open security settings" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(`${gateway.url}/dashboard/security`);
    await ready(page);
    await page.getByRole("heading", { name: "Where you are signed in" }).waitFor();
    expect(await page.locator("li.session").count()).toBe(2);
    expect(await page.locator("li.session .badge", { hasText: "This device" }).count()).toBe(1);
    await screenshot(page, "security");

    await page.getByLabel("Current password").focus();
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press("Tab");
    await page.keyboard.type(CHANGED_PASSWORD);
    await page.keyboard.press("Tab");
    await page.keyboard.type(CHANGED_PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByText("Password changed. Every other device was signed out.").waitFor();
    expect((await user.send("GET", "/account")).status).toBe(401);

    const other = await logInUser(gateway.url, user.email, CHANGED_PASSWORD);
    await page.reload();
    await ready(page);
    await page.locator("li.session").nth(1).waitFor();
    const signOut = page.getByRole("button", { name: /^Sign out .+/ }).first();
    await signOut.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await focusedText(page)).toBe("Cancel");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached" });
    await page.getByText("You are signed in on this device only.").waitFor();
    expect((await other.send("GET", "/account")).status).toBe(401);
  });

  test("two-factor set-up: a QR code drawn in the page, recovery codes shown once, then signing in asks for a code", async () => {
    const page = await open();
    await signIn(page, CHANGED_PASSWORD);
    await page.goto(`${gateway.url}/dashboard/security`);
    await ready(page);
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).focus();
    await page.keyboard.press("Enter");
    const qr = page.getByRole("img", { name: /QR code for your authenticator app/ });
    await qr.waitFor();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0 && img.src.startsWith("data:image/gif"))).toBe(true);
    const secret = (await page.locator("code.secret-value").textContent())!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await screenshot(page, "security-totp-setup");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe("code");
    await page.keyboard.type(totpCode(secret, Date.now()));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
    expect(await focusedText(page)).toBe("Your recovery codes");
    const codes = await page.locator(".recovery-codes code").allTextContents();
    expect(codes).toHaveLength(10);
    await screenshot(page, "security-recovery-codes");
    await page.getByRole("button", { name: "Done, I have stored them" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("10 recovery codes left.").waitFor();
    expect(await page.evaluate((c) => document.documentElement.outerHTML.includes(c), codes[0]!)).toBe(false);

    const phone = await open(PHONE);
    await signIn(phone, CHANGED_PASSWORD, totpCode(secret, Date.now() + 30_000));
    await phone.goto(`${gateway.url}/dashboard/security`);
    await ready(phone);
    await phone.getByRole("region", { name: "Account activity" }).getByText("2FA enabled").waitFor();
    expect(await phone.getByRole("region", { name: "Account activity" }).getByText("Password reset").count()).toBe(1);
    expect(await fitsWidth(phone)).toBe(true);
    await screenshot(phone, "phone-security");
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((tab) => tab.errors)).toEqual([]);
  });
});
