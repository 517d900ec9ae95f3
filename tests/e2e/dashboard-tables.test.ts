// Every dashboard table on a phone (390 × 844) and a desktop (1280 wide): nothing wider than the
// screen or than its table's box, and the money and status cells in view, not scrolled off.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { signInOperator } from "../support/operator.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { join } from "node:path";
import { ARTIFACTS, describeInBrowser, launchChromium, openTab, screenshot, type Tab } from "./support/browser.ts";
import { layoutProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

const SIZES = [{ name: "phone", width: 390, height: 844 }, { name: "desktop", width: 1280, height: 900 }];

/**
 * Money shown against the dashboard's one rule: no figure with more than 6 decimals, none left
 * as "10.000000000 USD", a rounded figure carries its exact amount as a title, and in a table's
 * money column the decimal points line up (measured on the "." itself).
 */
const moneyProblems = (page: Page) => page.evaluate(() => {
  const problems: string[] = [];
  const text = document.querySelector("main")?.innerText ?? "";
  for (const match of text.matchAll(/\$[\d,]+\.\d{7,}|\d+\.\d+ USD/g)) problems.push(`money not to the rule: ${match[0]}`);
  for (const money of document.querySelectorAll("main .money")) {
    const digits = (money.textContent ?? "").replace(/[^\d.]/g, "");
    const title = (money.getAttribute("title") ?? money.textContent ?? "").replace(/[^\d.]/g, "");
    const under = money.textContent?.startsWith("<") === true;
    const off = under ? !(Number(title) > 0 && Number(title) < Number(digits)) : Math.abs(Number(digits) - Number(title)) > 0.005;
    if (off) problems.push(`a title that is not the figure: ${money.textContent} / ${title}`);
  }
  const point = (cell: Element): number | null => {
    const node = [...(cell.querySelector(".money")?.childNodes ?? [])].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.includes("."));
    if (!node) return null;
    const range = document.createRange();
    range.setStart(node, node.textContent!.indexOf("."));
    range.setEnd(node, node.textContent!.indexOf(".") + 1);
    return range.getBoundingClientRect().left;
  };
  for (const table of document.querySelectorAll("main table:not(.stacked)")) {
    const columns = table.querySelector("tbody tr")?.children.length ?? 0;
    for (let i = 0; i < columns; i++) {
      const points = [...table.querySelectorAll(`tbody tr > :nth-child(${i + 1})`)].map(point).filter((x) => x !== null);
      if (points.length > 1 && Math.max(...points) - Math.min(...points) > 1) problems.push(`decimal points not lined up in column ${i + 1} of "${table.querySelector("caption")?.textContent}"`);
    }
  }
  return problems;
});

describeInBrowser("the dashboard's tables on a phone and a desktop", () => {
  let upstream: FakeUpstream;
  let stripe: FakeStripe;
  let gateway: TestGateway;
  let browser: Browser;
  let operator: SignedIn;
  let customer: SignedIn;
  let receiver: ReturnType<typeof Bun.serve>;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    upstream = startFakeUpstream();
    stripe = startFakeStripe();
    gateway = await startGateway("sqlite", { ...providerEnv(upstream), ...stripeEnv(stripe), WEBHOOK_ALLOW_PRIVATE: "1" });
    receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    browser = await launchChromium();
    operator = await signInOperator(gateway.url, gateway.store);
    // A customer with a row in every table: a key, requests (one failed), a paid purchase.
    customer = await signUpUser(gateway.url);
    await verifyEmail(gateway.store, customer.email);
    const { key } = await readJson(await customer.send("POST", "/keys/generate", { name: "Mobile app with a long name" }));
    expect((await postChat(gateway.url, key, hello())).status).toBe(200);
    upstream.behave({ status: 500 });
    await postChat(gateway.url, key, hello());
    upstream.behave({});
    // A webhook endpoint, so that Settings lists deliveries.
    expect((await customer.send("PUT", "/settings/webhook", { url: `http://127.0.0.1:${receiver.port}/hook` })).status).toBe(200);
    // An operator's grant (a webhook event too): the audit log's text names its amount ("grant of 10.000000000 USD").
    expect((await operator.send("POST", `/admin/accounts/${encodeURIComponent(customer.email)}/credits`, { usd: "10", note: "goodwill" })).status).toBe(200);
    const { sessionId } = await readJson(await customer.send("POST", "/checkout", { packId: "builder" }));
    expect((await deliver(gateway.url, stripeEvent("checkout.session.completed", paidSession(stripe.sessions.get(sessionId)!)))).status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await stripe?.stop();
    await upstream?.stop();
    receiver?.stop(true);
  });

  const PAGES: [string, string, () => SignedIn][] = [
    ["overview", "/dashboard", () => customer],
    ["usage", "/dashboard/usage", () => customer],
    ["models", "/dashboard/models", () => customer],
    ["purchases", "/dashboard/purchases", () => customer],
    ["security", "/dashboard/security", () => customer],
    ["settings", "/dashboard/settings", () => customer],
    ["console", "/dashboard/admin", () => operator],
    ["console-accounts", "/dashboard/admin/accounts", () => operator],
    ["console-account", "/dashboard/admin/accounts?email=", () => operator],
    ["console-catalog", "/dashboard/admin/catalog", () => operator],
    ["console-audit", "/dashboard/admin/audit", () => operator],
  ];

  for (const size of SIZES) {
    test.each(PAGES)(`at ${size.width} px: nothing overflows, money and status stay in view, money reads one way (%s)`, async (label, path, as) => {
      const tab = await openTab(browser, size);
      tabs.push(tab);
      const [name, value] = as().cookie.split("=") as [string, string];
      await tab.context.addCookies([{ name, value, domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" }]);
      const { page } = tab;
      page.setDefaultTimeout(8_000);
      await page.goto(`${gateway.url}${path}${path.endsWith("=") ? encodeURIComponent(customer.email) : ""}`);
      await page.locator("#page:not([aria-busy])").waitFor();
      // The security page's activity table comes a moment after the rest.
      await page.locator("main table").first().waitFor();
      // Tables are fitted to their boxes once laid out: let two frames pass.
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      await screenshot(page, `tables-${size.name}-${label}`);
      // The page's main table on its own, at full size, for a closer look.
      await page.locator("main .table-scroll").last().screenshot({ path: join(ARTIFACTS, `tables-${size.name}-${label}-table.png`) });
      expect({ page: label, problems: await layoutProblems(page) }).toEqual({ page: label, problems: [] });
      expect({ page: label, money: await moneyProblems(page) }).toEqual({ page: label, money: [] });
    });
  }

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
