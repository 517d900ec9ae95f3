// A user's whole journey through the dashboard in headless Chromium, against the real server
// with a fake provider and a fake Stripe on loopback.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { nanos } from "../../src/core/money.ts";
import { postChat, hello } from "../support/chat.ts";
import { deliver, paidSession, startFakeStripe, stripeEnv, stripeEvent, PRICES, type FakeStripe } from "../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { startFakeSmtp, type FakeSmtp } from "../support/fake-smtp.ts";
import { verifyByMail } from "../support/mail.ts";
import { PASSWORD, uniqueEmail } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, type Tab } from "./support/browser.ts";

setDefaultTimeout(30_000);

// The fake provider reports 11 prompt and 7 completion tokens; gpt-4.1-nano sells them at
// $0.10 and $0.40 per million: 11 × 0.10 + 7 × 0.40 = 3.9 millionths of a dollar.
const MODEL = "gpt-4.1-nano";
const REQUEST_COST = "$0.0000039";

describeInBrowser("the dashboard, end to end", () => {
  let upstream: FakeUpstream;
  let stripe: FakeStripe;
  let smtp: FakeSmtp;
  let gateway: TestGateway;
  let browser: Browser;
  let tab: Tab;
  let page: Page;
  const email = uniqueEmail("dashboard");
  let secret = "";

  beforeAll(async () => {
    upstream = startFakeUpstream();
    stripe = startFakeStripe();
    smtp = await startFakeSmtp();
    gateway = await startGateway("sqlite", {
      ...providerEnv(upstream), ...stripeEnv(stripe), SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10", WEBHOOK_ALLOW_PRIVATE: "1",
    });
    browser = await launchChromium();
    tab = await openTab(browser);
    page = tab.page;
    // Stripe's hosted page is not on this network: answer for it, so that arriving there can be seen.
    await tab.context.route("https://checkout.stripe.test/**", (route) =>
      route.fulfill({ contentType: "text/html", body: "<title>Stripe Checkout (fake)</title><h1>Pay</h1>" }));
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await stripe?.stop();
    await smtp?.stop();
    await upstream?.stop();
  });

  const url = (path: string) => `${gateway.url}${path}`;
  const goTo = async (path: string) => {
    await page.goto(url(path));
    await page.locator("#page:not([aria-busy])").waitFor();
  };
  const stat = (label: string) => page.locator(".stat").filter({ has: page.getByRole("heading", { name: label }) }).locator(".stat-value");
  const keyCard = (name: string, status: string) => page.locator("article.key").filter({ has: page.getByRole("heading", { name, exact: true }) })
    .filter({ has: page.locator(`.badge.${status}`) });
  const rotatedCard = (name: string) => page.locator("article.key.status-revoked").filter({ has: page.getByRole("heading", { name, exact: true }) })
    .filter({ has: page.locator(".badge", { hasText: "Rotated" }) });
  const fact = (card: ReturnType<typeof keyCard>, term: string) => card.locator("div").filter({ has: page.locator("dt", { hasText: term }) }).locator("dd");
  const accountId = async () => (await gateway.store.findAccountByEmail(email))!.id;

  const secretInput = () => page.getByRole("textbox", { name: "Your new API key" });
  /** Waits for the show-once panel, which takes the focus so that it is read out first. */
  const secretShown = async () => {
    await secretInput().waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("new-key-heading");
  };
  /** Reads the plaintext from the show-once panel, then dismisses it. */
  const takeSecret = async (): Promise<string> => {
    const input = secretInput();
    const value = await input.inputValue();
    await page.getByRole("button", { name: "Done, I have stored it" }).click();
    await input.waitFor({ state: "detached" });
    return value;
  };

  /** Nothing in the page (markup or any input's value) still holds `text`. */
  const pageHolds = (text: string) => page.evaluate((t) =>
    document.documentElement.outerHTML.includes(t) || [...document.querySelectorAll("input")].some((i) => i.value.includes(t)), text);

  test("a visitor is sent to sign in, creates an account, confirms its e-mail from the link and sees the $5.00 of free credits", async () => {
    await page.goto(url("/dashboard"));
    await page.waitForURL(url("/dashboard/signin?next=%2Fdashboard"));
    await page.locator("#page:not([aria-busy])").waitFor();
    await screenshot(page, "sign-in");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.waitForURL(/\/dashboard\/signup\?next=/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await screenshot(page, "sign-up");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(url("/dashboard"));
    await page.locator("#page:not([aria-busy])").waitFor();
    // The free credits wait for the e-mail's confirmation (its page is tested in dashboard-accounts); the banner says so.
    expect(await stat("Balance").textContent()).toBe("$0.00");
    await page.getByRole("region", { name: "E-mail confirmation" }).waitFor();
    expect((await verifyByMail(smtp, gateway.url, email)).status).toBe(200);
    await goTo("/dashboard");
    expect(await stat("Balance").textContent()).toBe("$5.00");
    expect(await stat("Spend, last 24 hours").textContent()).toBe("$0.00");
    // Thirty days of nothing are said in a sentence, not drawn.
    expect(await page.getByRole("img", { name: /Daily spend over the last 30 days/ }).count()).toBe(0);
    await page.getByText("No spend yet.", { exact: false }).waitFor();
    await screenshot(page, "overview-new-account");
  });

  test("a key's limit with too many decimals is refused by the server, and the message sits by that field", async () => {
    await goTo("/dashboard/keys");
    await page.getByRole("button", { name: "Create key" }).click();
    const creditLimit = page.getByLabel("Lifetime credit limit (USD)");
    await creditLimit.fill("0.0000001");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    const message = page.locator(".field").filter({ has: creditLimit }).locator(".field-error");
    await message.waitFor();
    expect(await message.textContent()).toBe("Lifetime credit limit (USD) must have at most 6 decimal places");
    expect(await creditLimit.getAttribute("aria-invalid")).toBe("true");
    expect(await creditLimit.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await gateway.store.listKeys(await accountId())).toEqual([]);
    await screenshot(page, "keys-server-error");
  });

  test("creates a key with every option and shows its plaintext once, with a working Copy button", async () => {
    await tab.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await goTo("/dashboard/keys");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("Name").fill("Backend");
    await page.getByLabel("Expires").fill("2030-01-31T12:00");
    await page.getByLabel("Lifetime credit limit (USD)").fill("10");
    await page.getByLabel("Spend limit per hour (USD)").fill("2.5");
    await page.getByLabel("Request limit per hour").fill("100");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();

    await secretShown();
    await page.getByRole("button", { name: "Copy", exact: true }).first().click();
    await page.getByText("Copied to the clipboard.").waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    await screenshot(page, "keys-new-secret");
    secret = await takeSecret();
    expect(secret).toMatch(/^gw-[A-Za-z0-9]{40,}$/);
    expect(copied).toBe(secret);
    expect(await pageHolds(secret)).toBe(false);

    const card = keyCard("Backend", "active");
    expect(await fact(card, "Key").textContent()).toBe(`${secret.slice(0, 10)}…`);
    expect(await fact(card, "Expires").textContent()).toBe("2030-01-31 12:00 UTC");
    expect(await fact(card, "Lifetime credit limit").locator(".money").textContent()).toBe("$10.00");
    expect(await fact(card, "Spend limit per hour").textContent()).toBe("$2.50");
    expect(await fact(card, "Request limit per hour").textContent()).toBe("100");
    const [stored] = await gateway.store.listKeys(await accountId());
    expect(stored).toMatchObject({
      name: "Backend", expiresAt: Date.UTC(2030, 0, 31, 12), creditLimit: 10_000_000_000n, usdPerHour: 2_500_000_000n, requestsPerHour: 100,
    });
    await screenshot(page, "keys");

    // How to use it: curl and the OpenAI SDKs at /v1, Claude Code at the gateway's own address, Codex through a provider of its own.
    const snippets = await page.getByRole("region", { name: "Use a key" }).locator("pre").allTextContents();
    expect(snippets).toHaveLength(8);
    expect(snippets[0]).toContain(`curl ${gateway.url}/v1/chat/completions`);
    expect(snippets[2]).toContain(`baseURL: "${gateway.url}/v1"`);
    expect(snippets[4]).toContain(`export ANTHROPIC_BASE_URL=${gateway.url}\nexport ANTHROPIC_AUTH_TOKEN=gw-…`);
    expect(snippets[5]).toContain(`[model_providers.gateway]\nname = "gateway"\nbase_url = "${gateway.url}/v1"\nenv_key = "GATEWAY_API_KEY"`);
    expect(JSON.parse(snippets[6]!).provider.gateway.options.baseURL).toBe(`${gateway.url}/v1`);
    expect(JSON.parse(snippets[7]!).providers.gateway.baseUrl).toBe(`${gateway.url}/v1`);
  });

  test("a chat request made with the key shows in usage with its cost, and in the overview's spend", async () => {
    const res = await postChat(gateway.url, secret, hello(MODEL));
    expect(res.status).toBe(200);
    await goTo("/dashboard/usage");
    const row = page.locator("table.usage tbody tr:not(.usage-detail)");
    expect(await row.count()).toBe(1);
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(1, 7)).toEqual([MODEL, "Backend", "11", "7", REQUEST_COST, "Success"]);
    // Three significant digits show the whole cost: nothing is cut, so no exact twin is needed.
    expect(await row.locator("td .money").first().getAttribute("title")).toBeNull();
    await row.getByRole("button", { name: /Details/ }).click();
    expect(await page.locator("tr.usage-detail dd").allTextContents()).toEqual(["0", "—", expect.stringMatching(/^[\d,]+ ms$/)]);
    const [logged] = await gateway.store.usageLogPage(await accountId(), null, 1);
    expect(logged!.cost).toBe(nanos(3_900n));
    await screenshot(page, "usage");

    // The download, fetched with the page's cookie.
    const csv = await page.request.get(await page.getByRole("link", { name: /Download CSV/ }).evaluate((a) => (a as HTMLAnchorElement).href));
    expect(csv.headers()["content-type"]).toBe("text/csv");
    expect(await csv.text()).toContain(`,${MODEL},${MODEL},11,7,0.000003900,`);

    await goTo("/dashboard");
    // GET /account gives the balance to 6 places ($4.9999961 is $4.999996), cut to the cent (never
    // rounded up to a balance the account does not have), every digit on hover and on a click.
    expect(await stat("Balance").textContent()).toBe("$4.99");
    expect(await stat("Balance").locator(".money").getAttribute("title")).toBe("$4.999996");
    await stat("Balance").locator(".money").click();
    expect(await stat("Balance").textContent()).toBe("$4.999996");
    expect(await stat("Spend, last 24 hours").textContent()).toBe(REQUEST_COST);
    expect(await page.locator(".stat").getByText("1 request", { exact: true }).count()).toBe(1);
    expect(await page.locator(".chart rect[height]:not([height='0.00'])").count()).toBe(1);
    await screenshot(page, "overview-after-a-request");
  });

  test("a request with cache reads shows its cached tokens and what caching saved, in usage and the overview", async () => {
    // 8 of the 11 prompt tokens read from the cache: gpt-4.1-nano sells them at $0.025 per
    // million, not $0.10, so caching saved 8 × $0.075 per million = $0.0000006.
    upstream.behave({ usageDetails: { cached_tokens: 8 } });
    expect((await postChat(gateway.url, secret, hello(MODEL))).status).toBe(200);
    upstream.behave({});
    await goTo("/dashboard/usage");
    // 3 uncached and 8 cached prompt tokens and 7 completion tokens: $0.0000033.
    const first = page.locator("table.usage tbody tr").first();
    expect((await first.locator("td").allTextContents()).slice(3, 6)).toEqual(["11", "7", "$0.0000033"]);
    await first.getByRole("button", { name: /Details/ }).click();
    expect((await page.locator("tr.usage-detail:visible dd").allTextContents()).slice(0, 2)).toEqual(["8", "$0.0000006"]);
    await screenshot(page, "usage-cached");
    await goTo("/dashboard");
    expect(await stat("Saved by prompt caching, 30 days").textContent()).toBe("$0.0000006");

    // On a phone: the same figures shown, and the page still fits without sideways scrolling.
    const desktop = page.viewportSize()!;
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      expect(await stat("Saved by prompt caching, 30 days").isVisible()).toBe(true);
      await goTo("/dashboard/usage");
      await page.locator("table.usage tbody tr").first().getByRole("button", { name: /Details/ }).click();
      const saved = page.locator("tr.usage-detail:visible dd").nth(1);
      expect(await saved.textContent()).toBe("$0.0000006");
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // The table scrolls within its card: the Saved column is reached there, on screen.
      await saved.scrollIntoViewIfNeeded();
      const box = (await saved.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
      await screenshot(page, "phone-usage-cached");
    } finally {
      await page.setViewportSize(desktop);
    }
  });

  test("edits the key's request limit in a dialog, and the gateway enforces it", async () => {
    await goTo("/dashboard/keys");
    await page.getByRole("button", { name: "Edit Backend" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Backend" });
    await dialog.waitFor();
    await dialog.getByLabel("Request limit per hour").fill("1");
    await screenshot(page, "keys-edit");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByText("Saved the changes to Backend.").waitFor();
    expect(await fact(keyCard("Backend", "active"), "Request limit per hour").textContent()).toBe("1");
    // The one request of this hour has been made.
    expect((await postChat(gateway.url, secret, hello(MODEL))).status).toBe(429);
  });

  test("keeps the key to a model and a network in the edit dialog, shows them, and the gateway enforces them", async () => {
    await goTo("/dashboard/keys");
    await page.getByRole("button", { name: "Edit Backend" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Backend" });
    await dialog.getByLabel("Allowed models").fill("gpt-4.1, no-such-model");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.getByText("Allowed models names `no-such-model`, which is not a catalog model").waitFor();
    await dialog.getByLabel("Allowed models").fill("gpt-4.1");
    await dialog.getByLabel("Allowed IP addresses").fill("127.0.0.0/8, ::1");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.waitFor({ state: "detached" });
    const card = keyCard("Backend", "active");
    // The list is drawn anew once saved.
    await fact(card, "Models").filter({ hasText: /^gpt-4\.1$/ }).waitFor();
    expect(await fact(card, "IP addresses").textContent()).toBe("127.0.0.0/8, ::1/128");
    await screenshot(page, "keys-allowlists");
    const refused = await postChat(gateway.url, secret, hello(MODEL));
    expect(refused.status).toBe(403);

    await page.getByRole("button", { name: "Edit Backend" }).click();
    await dialog.getByLabel("Allowed models").fill("");
    await dialog.getByLabel("Allowed IP addresses").fill("");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.waitFor({ state: "detached" });
    await fact(card, "Models").filter({ hasText: /^Any$/ }).waitFor();
    expect(await fact(card, "IP addresses").textContent()).toBe("Any");
  });

  test("creates a management key, shown once, listed as one, that a script can use", async () => {
    await goTo("/dashboard/keys");
    await page.getByRole("button", { name: "Create management key" }).click();
    await page.getByLabel("Used by").fill("Provisioning");
    await page.getByRole("dialog").getByRole("button", { name: "Create management key" }).click();
    await secretShown();
    const management = await takeSecret();
    expect(management).toMatch(/^gw-mgmt-[0-9A-Za-z]{48}$/);
    const card = page.locator("article.key").filter({ has: page.getByRole("heading", { name: "Provisioning", exact: true }) });
    await card.locator(".badge.management").waitFor();
    await screenshot(page, "keys-management");
    const account = await fetch(url("/account"), { headers: { authorization: `Bearer ${management}` } });
    expect(await account.json()).toMatchObject({ email });
  });

  test("settings are checked in the page, refused values are explained by their field, and saved ones stored", async () => {
    await goTo("/dashboard/settings");
    const threshold = page.getByLabel("Alert threshold (USD)");
    const thresholdError = page.locator(".field").filter({ has: threshold }).locator(".field-error");
    const writes: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "PATCH") writes.push(r.url());
    });

    await threshold.fill("150");
    await page.getByRole("button", { name: "Save alert" }).click();
    await thresholdError.waitFor();
    expect(await thresholdError.textContent()).toBe("Alert threshold must be a number from 0 to 100");
    expect(writes).toEqual([]);

    await threshold.fill("12.3456789012");
    await page.getByRole("button", { name: "Save alert" }).click();
    await thresholdError.filter({ hasText: "decimal places" }).waitFor();
    expect(await thresholdError.textContent()).toBe("Alert threshold (USD) must have at most 9 decimal places");
    await screenshot(page, "settings-error");

    await threshold.fill("10");
    await page.getByRole("button", { name: "Save alert" }).click();
    await page.getByText("Saved. You get an e-mail when the balance falls below $10.00.").waitFor();
    expect(await thresholdError.isHidden()).toBe(true);

    const limit = page.getByLabel("Hourly spend limit (USD)");
    await limit.fill("10001");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.getByText("Hourly spend limit must be a number from 0 to 10,000").waitFor();
    // The API's own "no limit" value is not a number the hint offers: the form refuses it, saying what to do instead.
    await limit.fill("-1");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.getByText("Hourly spend limit must be a number from 0 to 10,000; leave it empty for no limit").waitFor();
    expect(await page.getByText("Saved. There is no hourly spend limit.").count()).toBe(0);
    await limit.fill("50");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.getByText("Saved. Requests are refused once $50.00 is spent in an hour.").waitFor();
    expect(await gateway.store.findAccountByEmail(email)).toMatchObject({ alertThreshold: 10_000_000_000n, spendLimit: 50_000_000_000n });
    await screenshot(page, "settings");

    await goTo("/dashboard/settings");
    expect(await threshold.inputValue()).toBe("10");
    expect(await limit.inputValue()).toBe("50");
    await limit.fill("");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.getByText("Saved. There is no hourly spend limit.").waitFor();
    expect((await gateway.store.findAccountByEmail(email))!.spendLimit).toBeNull();
  });

  test("sets a webhook endpoint, shows its signing secret once, and lists what was delivered", async () => {
    const received: string[] = [];
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (received.push(await r.text()), new Response("ok")) });
    try {
      await goTo("/dashboard/settings");
      await page.getByLabel("Endpoint URL").fill(`http://127.0.0.1:${receiver.port}/hook`);
      await page.getByRole("button", { name: "Save endpoint" }).click();
      const secretBox = page.getByRole("textbox", { name: "Your webhook signing secret" });
      await secretBox.waitFor();
      expect(await secretBox.inputValue()).toMatch(/^whsec_[0-9a-f]{64}$/);
      await page.getByRole("button", { name: "Done, I have stored it" }).click();
      await gateway.store.addCredit({ accountId: await accountId(), amount: 1_000_000_000n as never, kind: "grant", note: "e2e", now: Date.now() });
      await waitFor(() => received.length > 0, "the event to reach the receiver", 5_000);
      await goTo("/dashboard/settings");
      const row = page.getByRole("region", { name: "Recent webhook deliveries" }).locator("tr:not(.delivery-payload)", { hasText: "credits.granted" });
      await row.waitFor();
      expect(await row.textContent()).toContain("Delivered");
      await screenshot(page, "settings-webhook");
    } finally {
      receiver.stop(true);
    }
  });

  test("rotates the key: the old one stops working and the new one is shown once", async () => {
    await goTo("/dashboard/keys");
    await page.getByRole("button", { name: "Rotate Backend" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate Backend?" });
    await dialog.waitFor();
    await screenshot(page, "keys-rotate-confirm");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await secretShown();
    const replacement = await takeSecret();
    expect(replacement).not.toBe(secret);
    expect(await pageHolds(replacement)).toBe(false);
    // The replaced key is marked as rotated, not as a second revoked key of that name.
    await rotatedCard("Backend").waitFor();
    expect(await keyCard("Backend", "revoked").count()).toBe(0);
    await keyCard("Backend", "active").waitFor();
    expect((await postChat(gateway.url, secret, hello(MODEL))).status).toBe(401);
    expect((await postChat(gateway.url, replacement, hello(MODEL))).status).toBe(200);
    secret = replacement;
  });

  test("revokes the key only after it is confirmed", async () => {
    await goTo("/dashboard/keys");
    const active = keyCard("Backend", "active");
    await active.getByRole("button", { name: "Revoke Backend" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke Backend?" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await active.count()).toBe(1);

    await active.getByRole("button", { name: "Revoke Backend" }).click();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("Revoked Backend.").waitFor();
    expect(await keyCard("Backend", "active").count()).toBe(0);
    expect(await keyCard("Backend", "revoked").count()).toBe(1);
    expect(await rotatedCard("Backend").count()).toBe(1);
    expect((await postChat(gateway.url, secret, hello(MODEL))).status).toBe(401);
    await screenshot(page, "keys-revoked");
  });

  test("buying a pack opens the Stripe checkout the gateway created, which returns to the top-up page", async () => {
    await goTo("/dashboard/topup");
    expect(await page.locator(".pack h2").allTextContents()).toEqual(["Builder", "Pro", "Team", "Scale"]);
    const packs = (await page.locator(".pack").allInnerTexts()).map((text) => text.replace(/\s+/g, " "));
    expect(packs).toEqual([
      "Builder $25.00 $30.00 in credits Buy Builder", "Pro $50.00 $60.00 in credits Buy Pro",
      "Team $100.00 $120.00 in credits Buy Team", "Scale $200.00 $250.00 in credits Buy Scale",
    ]);
    await screenshot(page, "topup");
    await page.getByRole("button", { name: "Buy Builder" }).click();
    await page.waitForURL(/^https:\/\/checkout\.stripe\.test\//);

    expect(stripe.received).toHaveLength(1);
    const { form } = stripe.received[0]!;
    const [session] = [...stripe.sessions.values()];
    expect(page.url()).toBe(session!.url as string);
    expect(form["line_items[0][price]"]).toBe(PRICES.builder);
    expect(form.success_url).toBe(`${gateway.config.dashboardUrl}/topup?checkout=success&session_id={CHECKOUT_SESSION_ID}`);
    expect(form.cancel_url).toBe(`${gateway.config.dashboardUrl}/topup?checkout=cancelled`);
  });

  test("back from Stripe, the top-up page says the payment is being confirmed until it is, and clears the session id", async () => {
    // Stripe's redirect proves nothing: the checkout is still open until Stripe's webhook says it was paid.
    const [session] = [...stripe.sessions.values()];
    await goTo(`/dashboard/topup?checkout=success&session_id=${session!.id as string}`);
    await page.getByText("Stripe is confirming your payment.").waitFor();
    expect(await page.getByText("went through").count()).toBe(0);
    expect(page.url()).toBe(url("/dashboard/topup"));
    await screenshot(page, "topup-success");
    // Once Stripe's webhook has credited it, the same return says so.
    expect((await deliver(gateway.url, stripeEvent("checkout.session.completed", paidSession(session!)))).status).toBe(200);
    await goTo(`/dashboard/topup?checkout=success&session_id=${session!.id as string}`);
    await page.getByText("Payment received: $30.00 in credits were added to your balance.").waitFor();
    await screenshot(page, "topup-paid");
    await goTo("/dashboard/topup?checkout=cancelled");
    await page.getByText("Checkout cancelled. You were not charged.").waitFor();
    await screenshot(page, "topup-cancelled");
  });

  test("signs out: the dashboard then asks to sign in again", async () => {
    await goTo("/dashboard");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(url("/dashboard/signin"));
    await page.goto(url("/dashboard/keys"));
    await page.waitForURL(url("/dashboard/signin?next=%2Fdashboard%2Fkeys"));
  });

  test("signing in again with a wrong password says so; the right one returns to the page asked for", async () => {
    await page.locator("#page:not([aria-busy])").waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor();
    await screenshot(page, "sign-in-error");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(url("/dashboard/keys"));
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tab.errors).toEqual([]);
  });
});
