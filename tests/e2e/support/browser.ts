// Headless Chromium for the dashboard's end-to-end tests: Debian's package at /usr/bin/chromium
// (.ci/run installs it), driven by playwright-core, which never downloads a browser.
import { describe } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

// Without the networking flags Chromium keeps dialling Google's services, which a closed
// network refuses; every launch gets a new, empty profile from Playwright.
const FLAGS = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

/** Where the screenshots go (git-ignored). */
export const ARTIFACTS = join(import.meta.dir, "..", "..", "artifacts", "dashboard");

/** Declares the suite, or skips it saying so when Chromium is not installed. */
export function describeInBrowser(title: string, suite: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(title, suite);
    return;
  }
  console.log(`note: ${CHROMIUM} is missing (apt-get install chromium; .ci/run does it); the browser tests "${title}" are skipped`);
  describe.skip(`${title} [needs ${CHROMIUM}]`, suite);
}

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });

export interface Tab {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors (a refused Content-Security-Policy among them) seen so far. */
  errors: string[];
}

/** A fresh context (no cookies) and page: US English, UTC, at `width` CSS pixels (a desktop unless told). */
export async function openTab(browser: Browser, options: { width?: number; height?: number } = {}): Promise<Tab> {
  const context = await browser.newContext({
    locale: "en-US",
    timezoneId: "UTC",
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // A refused request is logged as an error too; the tests provoke some (400s) on purpose.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(`console: ${message.text()}`);
  });
  return { context, page, errors };
}

/** Signs the tab's browser in as `who` (a session made over HTTP), its cookie scoped to `path`. */
export async function signIn(tab: Tab, who: { cookie: string }, path = "/"): Promise<void> {
  const [name, value] = who.cookie.split("=") as [string, string];
  await tab.context.addCookies([{ name, value, domain: "127.0.0.1", path, httpOnly: true, sameSite: "Lax" }]);
}

/** Saves a full-page screenshot as tests/artifacts/dashboard/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
