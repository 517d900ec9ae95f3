// The operator console and the customer's newer pages in headless Chromium, against the real
// server with a fake provider and a fake Stripe on loopback.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { hello, postChat } from "../support/chat.ts";
import { deliver, paidSession, receiptFor, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { signInOperator } from "../support/operator.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { verifyEmail } from "../support/accounts.ts";

setDefaultTimeout(30_000);

const MODEL = "gpt-4.1-nano";

describeInBrowser("the operator console and the customer's pages, end to end", () => {
  let upstream: FakeUpstream;
  let stripe: FakeStripe;
  let gateway: TestGateway;
  let browser: Browser;
  let operator: SignedIn;
  let customer: SignedIn;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    upstream = startFakeUpstream();
    stripe = startFakeStripe();
    gateway = await startGateway("sqlite", { ...providerEnv(upstream), ...stripeEnv(stripe) });
    browser = await launchChromium();
    operator = await signInOperator(gateway.url, gateway.store);
    // A customer with something on every page: a key, a request, a paid purchase with its receipt.
    customer = await signUpUser(gateway.url);
    await verifyEmail(gateway.store, customer.email); // the free credits come with a verified e-mail
    const { key } = await readJson(await customer.send("POST", "/keys/generate", { name: "Backend" }));
    expect((await postChat(gateway.url, key, hello(MODEL))).status).toBe(200);
    const { sessionId } = await readJson(await customer.send("POST", "/checkout", { packId: "builder" }));
    expect((await deliver(gateway.url, stripeEvent("checkout.session.completed", paidSession(stripe.sessions.get(sessionId)!)))).status).toBe(200);
    await waitFor(async () => (await gateway.store.listCheckouts((await gateway.store.findAccountByEmail(customer.email))!.id, { paidOnly: true }))[0]?.receiptUrl != null, "the receipt");
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await stripe?.stop();
    await upstream?.stop();
  });

  const open = async (as: SignedIn, options: { width?: number; height?: number } = {}): Promise<Page> => {
    const tab = await openTab(browser, options);
    tabs.push(tab);
    await signIn(tab, as);
    // Fail within the test's time, with Playwright's message, rather than at the runner's timeout.
    tab.page.setDefaultTimeout(8_000);
    return tab.page;
  };
  const goTo = async (page: Page, path: string) => {
    await page.goto(`${gateway.url}${path}`);
    await page.locator("#page:not([aria-busy])").waitFor();
  };

  test("the console's front page shows credit sold and spent, per model and per provider, each chart with its table", async () => {
    const page = await open(operator);
    await goTo(page, "/dashboard/admin");
    expect(await page.locator(".stat", { hasText: "Credit sold, 30 days" }).locator(".stat-value").textContent()).toBe("$30.00");
    // Under a dime an amount reads to three significant digits: the whole of $0.0000039, no title needed.
    const spent = page.locator(".stat", { hasText: "Spent, 30 days" }).locator(".stat-value .money");
    expect([await spent.textContent(), await spent.getAttribute("title")]).toEqual(["$0.0000039", null]);
    expect(await page.getByRole("img", { name: /Credit sold and spent per day/ }).count()).toBe(1);
    expect(await page.getByRole("table", { name: "Requests per model, busiest first" }).locator("tbody tr").first().locator("td").allTextContents())
      .toEqual([MODEL, "$0.0000039", "1", "0", "0.0%", expect.stringMatching(/^\d+ ms$/)]);
    expect(await page.getByRole("table", { name: "Requests per provider, busiest first" }).locator("tbody td").first().textContent()).toBe("openai");
    await screenshot(page, "console-figures");
  });

  test("an operator finds the customer from the keyboard, grants credits exactly, bans and unbans", async () => {
    const page = await open(operator);
    await goTo(page, "/dashboard/admin/accounts");
    await page.getByLabel("Search accounts by e-mail").focus();
    await page.keyboard.type(customer.email.split("@")[0]!);
    await page.keyboard.press("Enter");
    await page.waitForURL(/q=/);
    await page.locator("#page:not([aria-busy])").waitFor();
    await page.getByRole("link", { name: customer.email }).click();
    await page.getByRole("heading", { name: customer.email }).waitFor();
    await screenshot(page, "console-account");
    // The purchase with the money paid, refunded and disputed.
    expect(await page.getByRole("table", { name: /^Purchases, newest first/ }).locator("tbody tr").first().locator("td").allTextContents())
      .toEqual([expect.any(String), expect.stringMatching(/^Builder\s*cs_/), "$30.00", "$25.00", "$0.00", "—", "paid"]);

    await page.getByLabel("Amount (USD)").fill("2.000000001");
    await page.getByLabel("Note").fill("sorry for the outage");
    await page.getByRole("button", { name: "Grant credits" }).press("Enter");
    // The grant is confirmed first; Cancel has the focus.
    await page.getByRole("dialog", { name: `Grant $2.000000001 to ${customer.email}?` }).getByRole("button", { name: "Grant credits" }).click();
    // The amount said back as typed; the balance ($36.9999961) cut toward zero by the one rule.
    await page.getByText("Granted $2.000000001. The balance is now $36.99.").waitFor();
    const account = await gateway.store.findAccountByEmail(customer.email);
    expect(account?.balance).toBe(36_999_996_101n as never);

    await page.getByRole("button", { name: "Ban account" }).click();
    const dialog = page.getByRole("dialog", { name: `Ban ${customer.email}?` });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    await dialog.getByRole("button", { name: "Ban" }).click();
    await page.getByText(`${customer.email} is banned.`).waitFor();
    expect((await customer.send("GET", "/account")).status).toBe(403);
    await page.getByRole("button", { name: "Unban account" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Unban" }).click();
    await page.getByText(`${customer.email} is unbanned.`).waitFor();
    expect((await customer.send("GET", "/account")).status).toBe(200);
  });

  test("an operator reprices and disables a model in the catalog; the audit log shows every change", async () => {
    const page = await open(operator);
    await goTo(page, "/dashboard/admin/catalog");
    await page.getByRole("button", { name: `Edit prices of ${MODEL}` }).click();
    const dialog = page.getByRole("dialog", { name: `Prices of ${MODEL}` });
    await dialog.getByLabel("Input price", { exact: true }).fill("0.125");
    await dialog.getByLabel("Cached input price").fill("0.03");
    await dialog.getByLabel("Output price").fill("0.5");
    await screenshot(page, "console-catalog-edit");
    await dialog.getByRole("button", { name: "Save prices" }).click();
    await page.getByText(/now sells at \$0\.125 in \(\$0\.03 cached\) and \$0\.50 out per million tokens/).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`prices-${"gpt-4.1-nano"}`);

    await page.getByRole("button", { name: "Disable gpt-4o" }).press("Enter");
    await page.getByRole("dialog", { name: "Disable gpt-4o?" }).getByRole("button", { name: "Disable model" }).click();
    await page.getByText("gpt-4o is disabled.", { exact: false }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("toggle-gpt-4o");
    await page.keyboard.press("Enter");
    await page.getByText("gpt-4o is enabled.", { exact: false }).waitFor();
    await screenshot(page, "console-catalog");

    await goTo(page, "/dashboard/admin/audit");
    const rows = page.getByRole("table", { name: "Events of every account, newest first" }).locator("tbody tr");
    const types = await rows.locator("td:nth-child(3)").allTextContents();
    expect(types.slice(0, 3)).toEqual(["Model changed", "Model changed", "Model changed"]);
    expect(types).toContain("Credits granted");
    expect(types).toContain("Account suspended");
    await screenshot(page, "console-audit");
  });

  test("the customer sees the catalog with its prices, narrows the usage table and finds the receipt", async () => {
    const page = await open(customer);
    await goTo(page, "/dashboard/models");
    const row = page.getByRole("table", { name: "Available models and their prices" }).locator("tr", { hasText: MODEL });
    expect((await row.locator("td").allTextContents()).slice(0, 6)).toEqual([MODEL, "GPT-4.1 nano", "openai", "$0.125", "$0.03", "$0.50"]);
    await screenshot(page, "customer-models");

    await goTo(page, "/dashboard/usage");
    expect(await page.getByRole("img", { name: /Spend per model per day/ }).count()).toBe(1);
    await page.getByLabel("Status").selectOption("error");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/status=error/);
    await page.getByText("No requests match these filters.").waitFor();
    await page.getByLabel("Status").selectOption("success");
    await page.getByLabel("Model", { exact: true }).selectOption(MODEL);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/status=success/);
    await page.locator("#page:not([aria-busy])").waitFor();
    expect(await page.locator("table.usage tbody tr:not(.usage-detail)").count()).toBe(1);
    await screenshot(page, "customer-usage-filtered");

    await goTo(page, "/dashboard/purchases");
    const receipt = page.getByRole("link", { name: /^Receipt/ });
    expect(await receipt.getAttribute("href")).toMatch(new RegExp(`^${receiptFor("pi_").replace(/[.]/g, "\\.")}`));
    await screenshot(page, "customer-purchases");
  });

  test("the estimator answers a use case and takes a follow-up", async () => {
    const page = await open(customer);
    await goTo(page, "/dashboard/estimator");
    await page.getByLabel("Your use case").fill("A support chatbot for 2,000 users a day, cheap");
    await page.getByRole("button", { name: "Estimate" }).click();
    await page.locator(".turn.assistant").waitFor();
    expect(await page.locator(".turn.assistant").textContent()).toContain("llama-4-scout");
    await page.getByLabel("Your use case").fill("And with complex reasoning?");
    await page.getByRole("button", { name: "Estimate" }).press("Enter");
    await page.locator(".turn.assistant").nth(1).waitFor();
    await screenshot(page, "customer-estimator");
  });

  const PHONE_PAGES = [
    [() => operator, "operator", ["/dashboard/admin", "/dashboard/admin/accounts", `/dashboard/admin/accounts?email=`, "/dashboard/admin/catalog", "/dashboard/admin/audit"]],
    [() => customer, "customer", ["/dashboard/models", "/dashboard/estimator", "/dashboard/usage", "/dashboard/purchases", "/dashboard/admin"]],
  ] as const;
  test.each(PHONE_PAGES)("every page fits a 390px phone for the %s's account without sideways scrolling", async (who, label, paths) => {
    const page = await open(who(), { width: 390, height: 844 });
    for (const path of paths) {
      await goTo(page, path.endsWith("=") ? path + encodeURIComponent(customer.email) : path);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
      expect({ path, width: widths.page }).toEqual({ path, width: widths.screen });
      await screenshot(page, `phone-${label}-${path.replace(/^\/dashboard\/?/, "").replace(/[/?=]+/g, "-") || "overview"}`);
    }
  });

  test("a customer sent to the console is told it is for operators", async () => {
    const page = await open(customer);
    const res = await page.goto(`${gateway.url}/dashboard/admin/catalog`);
    expect(res?.status()).toBe(403);
    await page.getByText("This page is for the gateway's operators.", { exact: false }).waitFor();
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((tab) => tab.errors)).toEqual([]);
  });
});
