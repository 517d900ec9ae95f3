// Every dashboard table on a phone (390 × 844) and a desktop (1280 wide): nothing wider than the
// screen or than its table's box, and the money and status cells in view, not scrolled off.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, type FakeStripe } from "../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { signInOperator } from "../support/operator.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { join } from "node:path";
import { ARTIFACTS, describeInBrowser, launchChromium, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { layoutProblems, moneyProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

const SIZES = [{ name: "phone", width: 390, height: 844 }, { name: "desktop", width: 1280, height: 900 }];

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
      await signIn(tab, as());
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
