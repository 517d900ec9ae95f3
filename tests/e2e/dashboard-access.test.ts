// The dashboard used from the keyboard and on a phone-sized screen, mounted under BASE_PATH.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { PAGES, type PageName } from "../../src/server/dashboard/page-table.ts";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, signUpUser, type Browser as SignedInUser } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";

setDefaultTimeout(30_000);

const BASE_PATH = "/api";
const PHONE = { width: 375, height: 812 };
const SIGNED_IN_PAGES = (Object.keys(PAGES) as PageName[]).filter((name) => PAGES[name].signedIn);

describeInBrowser("the dashboard's accessibility", () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let browser: Browser;
  let user: SignedInUser;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    upstream = startFakeUpstream();
    gateway = await startGateway("sqlite", { ...providerEnv(upstream), BASE_PATH });
    browser = await launchChromium();
    // An account with something on every page: a key with limits, a request in its usage.
    user = await signUpUser(gateway.url);
    // Verified, as by its e-mailed link: the free credits pay for the request below (the link itself is tested in dashboard-accounts).
    await verifyEmail(gateway.store, user.email);
    const { key } = await readJson(await user.send("POST", "/keys/generate", {
      name: "Mobile app", creditLimitUsd: 20, rateLimitUsdPerHour: 1.5, rateLimitRequestsPerHour: 500, expiresAt: "2031-06-30T00:00:00Z",
    }));
    expect((await postChat(gateway.url, key, hello())).status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.stop();
  });

  const open = async (options: { width?: number; height?: number; signedIn?: boolean } = {}): Promise<Page> => {
    const tab = await openTab(browser, options);
    tabs.push(tab);
    if (options.signedIn) {
      await signIn(tab, user, BASE_PATH);
    }
    return tab.page;
  };
  const goTo = async (page: Page, name: PageName) => {
    await page.goto(`${gateway.url}${PAGES[name].path}`);
    await page.locator("#page:not([aria-busy])").waitFor();
  };
  /** How the focused element would be announced: its role and name. */
  const focused = (page: Page) => page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return "";
    const label = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
    return `${el.tagName.toLowerCase()}: ${label ?? el.textContent?.trim() ?? ""}`;
  });

  test("the sign-in form works from the keyboard alone, in order, with a visible focus ring", async () => {
    const page = await open();
    await goTo(page, "signin");
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      order.push(await focused(page));
    }
    expect(order).toEqual([
      "a: Skip to content", "a: Gateway", "input: Email", "input: Password", "button: Sign in", "a: Create an account",
    ]);

    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).toBe("input: Email");
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: style.outlineWidth };
    });
    expect(ring).toEqual({ style: "solid", width: "3px" });
    await screenshot(page, "sign-in-keyboard-focus");

    await page.keyboard.type(user.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${gateway.url}/dashboard`);
    await page.locator("#page:not([aria-busy])").waitFor();
    // $5 of free credits less one request: cut toward zero, never rounded up to $5.00.
    expect(await page.locator(".stat-value").first().textContent()).toBe("$4.99");
  });

  test.each(["https://evil.example/dashboard", "//evil.example/api/dashboard/keys", "/api/not-the-dashboard", "http://["])(
    "after signing in, next=%p (not a dashboard page) leads to the overview instead",
    async (next) => {
      const page = await open();
      await page.goto(`${gateway.url}/dashboard/signin?${new URLSearchParams({ next })}`);
      await page.locator("#page:not([aria-busy])").waitFor();
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${gateway.url}/dashboard`);
    },
  );

  test("a field left wrong takes the focus and says why, next to it", async () => {
    const page = await open();
    await goTo(page, "signup");
    await page.getByRole("button", { name: "Create account" }).press("Enter");
    expect(await focused(page)).toBe("input: Email");
    const email = page.getByLabel("Email");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    // The message is part of the field's description, so a screen reader reads it with the field.
    const describedBy = (await email.getAttribute("aria-describedby"))!.split(" ");
    const message = await page.locator(`[id="${describedBy.at(-1)}"]`).textContent();
    expect(message).toBe("Enter your e-mail address, such as name@example.com");

    await email.fill(user.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).press("Enter");
    await page.locator(".field-error", { hasText: "Email already registered" }).waitFor();
    expect(await focused(page)).toBe("input: Email");
    await screenshot(page, "sign-up-taken-email");
  });

  test("the skip link jumps to the page's content, and a confirmation dialog is answered from the keyboard", async () => {
    const page = await open({ signedIn: true });
    await goTo(page, "keys");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");

    const revoke = page.getByRole("button", { name: "Revoke Mobile app" });
    await revoke.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Revoke Mobile app?" });
    await dialog.waitFor();
    // The safe choice has the focus; Escape backs out and the focus returns to where it was.
    expect(await focused(page)).toBe("button: Cancel");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await revoke.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await gateway.store.listKeys((await gateway.store.findAccountByEmail(user.email))!.id))[0]!.revokedAt).toBeNull();
  });

  test.each(SIGNED_IN_PAGES)("the %s page fits a 375px-wide phone screen without sideways scrolling", async (name) => {
    const page = await open({ ...PHONE, signedIn: true });
    await goTo(page, name);
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.screen);
    await screenshot(page, `phone-${name}`);
  });

  test("the sign-in page fits a phone screen too", async () => {
    const page = await open(PHONE);
    await goTo(page, "signin");
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, "phone-sign-in");
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((tab) => tab.errors)).toEqual([]);
  });
});
