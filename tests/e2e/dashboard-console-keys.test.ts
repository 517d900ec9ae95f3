// The keys page after a rotation, the overview's daily table, the phone's navigation and the
// operator console's actions that ask first, in headless Chromium against the real server.
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { readJson } from "../support/http.ts";
import { signInOperator } from "../support/operator.ts";
import { customerWithUsage } from "./support/customer.ts";
import type { Browser as SignedIn } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { useProviderDashboard } from "./support/dashboard-world.ts";

setDefaultTimeout(30_000);

const PHONE = { width: 390, height: 844 };

describeInBrowser("keys after a rotation, the overview, the phone's navigation and the console's confirmations", () => {
  const world = useProviderDashboard();
  let operator: SignedIn;
  let customer: SignedIn;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    operator = await signInOperator(world.gateway.url, world.gateway.store);
    customer = await customerWithUsage(world.gateway);
  });

  const open = async (as: SignedIn, path: string, size: { width?: number; height?: number } = {}): Promise<Page> => {
    const tab = await openTab(world.browser, size);
    tabs.push(tab);
    await signIn(tab, as);
    tab.page.setDefaultTimeout(8_000);
    await tab.page.goto(`${world.gateway.url}${path}`);
    await tab.page.locator("#page:not([aria-busy])").waitFor();
    return tab.page;
  };
  const confirm = async (page: Page, button: string) => {
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await dialog.getByRole("button", { name: button }).click();
  };

  test("the overview's and the usage page's daily tables open on today, newest first", async () => {
    const page = await open(customer, "/dashboard");
    const table = page.getByRole("table", { name: /Spend per day/ });
    const today = new Date().toISOString().slice(0, 10);
    expect(await table.locator("tbody tr").first().locator("td").first().textContent()).toBe(today);
    const usage = await open(customer, "/dashboard/usage");
    const perModel = usage.getByRole("table", { name: /Spend per model per day/ });
    expect(await perModel.locator("tbody tr").first().locator("td").first().textContent()).toBe(today);
  });

  test("a rotated key is marked Rotated below the active keys, revoked keys have no Edit, and a later action clears the Created notice", async () => {
    const page = await open(customer, "/dashboard/keys");
await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("Name").first().fill("Mobile");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    await page.getByText("Created Mobile.").waitFor();
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByRole("button", { name: "Rotate Backend" }).click();
    await confirm(page, "Rotate key");
    await page.getByText("Rotated Backend.").waitFor();
    expect(await page.getByText("Created Mobile.").count()).toBe(0);
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByRole("button", { name: "Revoke Mobile" }).click();
    await confirm(page, "Revoke key");
    await page.getByText("Revoked Mobile.").waitFor();
    const cards = page.locator(".key-list > li");
    const heads = await cards.evaluateAll((items) => items.map((li) => [li.querySelector("h3")?.textContent, li.querySelector(".badge")?.textContent]));
    expect(heads).toEqual([["Backend", "Active"], ["Mobile", "Revoked"], ["Backend", "Rotated"]]);
    expect(await page.getByRole("button", { name: /^Edit/ }).count()).toBe(1);
    await page.reload();
    await page.locator("#page:not([aria-busy])").waitFor();
    expect(await page.locator(".key-list .badge").allTextContents()).toEqual(["Active", "Revoked", "Rotated"]);
    await screenshot(page, "keys-rotated");
  });

  test("on a phone the navigation wraps: every page's link in view, the current one among them", async () => {
    const page = await open(customer, "/dashboard/security", PHONE);
    const links = page.locator(".site-header nav a");
    expect(await links.count()).toBe(9);
    const outOfView = await links.evaluateAll((all) => all
      .filter((a) => a.getBoundingClientRect().left < 0 || a.getBoundingClientRect().right > document.documentElement.clientWidth)
      .map((a) => a.textContent));
    expect(outOfView).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    const current = await page.locator('.site-header nav a[aria-current="page"]').boundingBox();
    expect(current!.x).toBeGreaterThanOrEqual(0);
    expect(current!.x + current!.width).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, "phone-nav");
  });

  test("the spend limit's hint offers an empty field for no limit, not -1", async () => {
    const page = await open(customer, "/dashboard/settings");
    const hint = page.locator(".field").filter({ has: page.getByLabel("Hourly spend limit (USD)") }).locator(".hint");
    expect(await hint.textContent()).toBe("From 0 to 10,000. Leave empty for no limit.");
  });

  test("a grant needs a note, too many decimals are named as such, and the operator confirms before credits move", async () => {
    const balance = async () => (await readJson(await customer.send("GET", "/account"))).balanceUsd as string;
    const before = await balance();
    const page = await open(operator, `/dashboard/admin/accounts?email=${encodeURIComponent(customer.email)}`);
    const error = (label: string) => page.locator(".field").filter({ has: page.getByLabel(label) }).locator(".field-error");
    await page.getByLabel("Amount (USD)").fill("10.1234567891");
    await page.getByRole("button", { name: "Grant credits" }).click();
    expect(await error("Amount (USD)").textContent()).toBe("Use at most 9 decimal places (the ledger counts to the billionth of a dollar)");
    expect(await error("Note").textContent()).toBe("Say why, for the ledger and the audit log");
    await page.getByLabel("Amount (USD)").fill("2.5");
    await page.getByLabel("Note").fill("refund for an outage");
    await page.getByRole("button", { name: "Grant credits" }).click();
    await page.getByRole("dialog", { name: `Grant $2.50 to ${customer.email}?` }).getByRole("button", { name: "Cancel" }).click();
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await balance()).toBe(before);
    await page.getByRole("button", { name: "Grant credits" }).click();
    await confirm(page, "Grant credits");
    await page.getByText("Granted $2.50.").waitFor();
    await page.getByLabel("Amount (USD)").fill("-1");
    await page.getByLabel("Note").fill("correction");
    await page.getByRole("button", { name: "Grant credits" }).click();
    await page.getByRole("dialog", { name: `Take $1.00 back from ${customer.email}?` }).getByRole("button", { name: "Take credits back" }).click();
    await page.getByText("Took back $1.00.").waitFor();
  });

  test("disabling a model asks first; the audit log words its events; the bars go by spend", async () => {
    const page = await open(operator, "/dashboard/admin/catalog");
    await page.getByRole("button", { name: "Disable gpt-5", exact: true }).click();
    await page.getByRole("dialog", { name: "Disable gpt-5?" }).getByRole("button", { name: "Cancel" }).click();
    expect(await page.getByRole("button", { name: "Disable gpt-5", exact: true }).count()).toBe(1);
    await page.getByRole("button", { name: "Disable gpt-5", exact: true }).click();
    await confirm(page, "Disable model");
    await page.getByText("gpt-5 is disabled.").waitFor();
    await page.goto(`${world.gateway.url}/dashboard/admin/audit`);
    await page.locator("#page:not([aria-busy])").waitFor();
    const types = await page.locator("table tbody tr td:nth-child(3)").allTextContents();
    expect(types).toContain("Model changed");
    expect(types).toContain("Credits granted");
    expect(types.filter((t) => t.includes("_") || /^[a-z]/.test(t))).toEqual([]);
    await page.goto(`${world.gateway.url}/dashboard/admin`);
    await page.locator("#page:not([aria-busy])").waitFor();
    const bars = await page.getByRole("img", { name: /Spend per model/ }).locator(".bar-label").allTextContents();
    expect(bars).toEqual(["gpt-5.5", "gpt-4.1-nano"]);
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
