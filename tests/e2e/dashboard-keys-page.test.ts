// The API keys page at 1280 and 390 px: the keys first, "Create key" opening the form, a bar of
// what a key with a credit limit has used, and a quickstart (curl, the OpenAI and Anthropic SDKs,
// Claude Code, Codex CLI, opencode, pi) with a Copy button each and the key just created filled in.
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { readJson } from "../support/http.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { useProviderDashboard } from "./support/dashboard-world.ts";
import { layoutProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

const SIZES = [{ name: "phone", width: 390, height: 844 }, { name: "desktop", width: 1280, height: 800 }];
const CLIENTS = ["curl", "OpenAI SDK for Python", "OpenAI SDK for JavaScript", "Anthropic SDK", "Claude Code", "Codex CLI", "opencode", "pi"];

describeInBrowser("the API keys page", () => {
  const world = useProviderDashboard();
  let customer: SignedIn;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    customer = await signUpUser(world.gateway.url);
    await verifyEmail(world.gateway.store, customer.email);
    const { key } = await readJson(await customer.send("POST", "/keys/generate", { name: "Production backend", creditLimitUsd: 0.00002 }));
    expect((await postChat(world.gateway.url, key, hello("gpt-4.1-nano"))).status).toBe(200);
    await customer.send("POST", "/keys/generate", { name: "Staging" });
  });

  const open = async (size: { width: number; height: number }): Promise<Page> => {
    const tab = await openTab(world.browser, size);
    tabs.push(tab);
    await tab.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await signIn(tab, customer);
    tab.page.setDefaultTimeout(8_000);
    await tab.page.goto(`${world.gateway.url}/dashboard/keys`);
    await tab.page.locator("#page:not([aria-busy])").waitFor();
    return tab.page;
  };

  for (const size of SIZES) {
    test(`at ${size.width} px the keys come first, within the first screen, and no form is open`, async () => {
      const page = await open(size);
      await screenshot(page, `keys-page-${size.name}`);
      const top = (selector: string) => page.locator(selector).first().evaluate((el) => el.getBoundingClientRect().top);
      expect(await page.locator("main form").count()).toBe(0);
      expect(await top(".key-list")).toBeLessThan(size.height);
      expect(await top(".key-list")).toBeLessThan(await top("#use-a-key"));
      expect(await layoutProblems(page)).toEqual([]);
    });
  }

  test("a key with a credit limit shows a bar of what it has used of it", async () => {
    const page = await open(SIZES[1]!);
    const card = page.locator("article", { has: page.getByRole("heading", { name: "Production backend" }) });
    const bar = card.getByRole("meter");
    expect(await bar.getAttribute("aria-label")).toBe("Share of the lifetime credit limit used");
    expect(Number(await bar.getAttribute("value"))).toBeGreaterThan(0);
    expect(await card.locator(".limit-use").textContent()).toBe("$0.000004 of $0.00002 used (20%)");
    const plain = page.locator("article", { has: page.getByRole("heading", { name: "Staging" }) });
    expect(await plain.getByRole("meter").count()).toBe(0);
  });

  test("Create key opens the form; the new key is filled into every quickstart snippet, each with a Copy button, until Done", async () => {
    const page = await open(SIZES[1]!);
    const quickstart = page.getByRole("region", { name: "Use a key" });
    expect(await quickstart.getByRole("heading", { level: 3 }).allTextContents()).toEqual(CLIENTS);
    expect(await quickstart.locator("pre").first().textContent()).toContain("gw-…");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create a key" });
    await dialog.getByLabel("Name").fill("Laptop");
    await dialog.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByLabel("Your new API key").inputValue();
    expect(secret).toMatch(/^gw-/);
    const snippets = await quickstart.locator("pre").allTextContents();
    expect(snippets).toHaveLength(CLIENTS.length);
    for (const snippet of snippets) expect(snippet).toContain(secret);
    expect(snippets[0]).toContain(`curl ${world.gateway.url}/v1/chat/completions`);
    await screenshot(page, "keys-page-quickstart-filled");
    await quickstart.getByRole("button", { name: "Copy the curl snippet" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippets[0]!);
    await page.getByRole("button", { name: "Done, I have stored it" }).click();
    expect(await quickstart.locator("pre").first().textContent()).toContain("gw-…");
    expect(await page.evaluate((s) => document.documentElement.outerHTML.includes(s), secret)).toBe(false);
  });

  test("a rotated key's replacement is filled into the quickstart as a new key is, until Done", async () => {
    const page = await open(SIZES[0]!);
    const quickstart = page.getByRole("region", { name: "Use a key" });
    const staging = page.locator(".key-list li", { hasText: "Staging" }).first();
    await staging.getByRole("button", { name: /Rotate/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate key" }).click();
    const secret = await page.getByLabel("Your new API key").inputValue();
    expect(secret).toMatch(/^gw-/);
    for (const snippet of await quickstart.locator("pre").allTextContents()) expect(snippet).toContain(secret);
    await page.getByRole("button", { name: "Done, I have stored it" }).click();
    expect(await quickstart.locator("pre").first().textContent()).toContain("gw-…");
  });

  test("no page raised a script error", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
