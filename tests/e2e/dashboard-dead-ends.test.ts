// Pages that must never leave a person stuck: an unknown address, a filter or page the server
// refuses, and a top-up page on a gateway where Stripe is not configured.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { signUpUser, type Browser as SignedInUser } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";

setDefaultTimeout(30_000);

describeInBrowser("the dashboard's dead ends, opened up", () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let browser: Browser;
  let user: SignedInUser;
  let tab: Tab;
  let page: Page;

  beforeAll(async () => {
    upstream = startFakeUpstream();
    // No STRIPE_* settings: no pack can be bought.
    gateway = await startGateway("sqlite", providerEnv(upstream));
    browser = await launchChromium();
    user = await signUpUser(gateway.url);
    await verifyEmail(gateway.store, user.email);
    const { key } = await readJson(await user.send("POST", "/keys/generate", { name: "Backend" }));
    expect((await postChat(gateway.url, key, hello())).status).toBe(200);
    tab = await openTab(browser);
    page = tab.page;
    await signIn(tab, user);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await upstream?.stop();
  });

  const goTo = async (path: string) => {
    const response = await page.goto(`${gateway.url}${path}`);
    await page.locator("#page:not([aria-busy]), body[data-page='not-found']").first().waitFor();
    return response;
  };
  const fieldError = (label: string) => page.locator(".field").filter({ has: page.getByLabel(label) }).locator(".field-error");

  test("an unknown dashboard address is a 404 page in the dashboard's look, with links back", async () => {
    const response = await goTo("/dashboard/nope");
    expect(response?.status()).toBe(404);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Page not found");
    expect(await page.locator("body").textContent()).not.toContain('{"error"');
    await page.getByRole("link", { name: "overview" }).click();
    await page.waitForURL(`${gateway.url}/dashboard`);
    await goTo("/dashboard/nope/deeper");
    await screenshot(page, "not-found");
  });

  test("From after To is caught in the page, said beside To, and nothing is sent", async () => {
    await goTo("/dashboard/usage");
    await page.getByLabel("From (UTC day)").fill("2026-03-10");
    await page.getByLabel("To (UTC day)").fill("2026-03-01");
    await page.getByRole("button", { name: "Apply filters" }).click();
    expect(await fieldError("To (UTC day)").textContent()).toBe("To must be on or after From (2026-03-10)");
    expect(await page.getByLabel("To (UTC day)").getAttribute("aria-invalid")).toBe("true");
    expect(new URL(page.url()).search).toBe("");
    await screenshot(page, "usage-dates-checked");
  });

  test("filters the server refuses stay on screen with the reason beside them and a way to clear them", async () => {
    await goTo("/dashboard/usage?from=2026-03-10&to=2026-03-01");
    expect(await page.getByText("This page could not be loaded").count()).toBe(0);
    expect(await fieldError("From (UTC day)").textContent()).toBe("From must not be after To");
    expect(await page.getByLabel("From (UTC day)").inputValue()).toBe("2026-03-10");
    expect(await page.getByRole("img", { name: /Spend per model/ }).count()).toBe(1);
    await screenshot(page, "usage-filters-refused");
    await page.getByRole("link", { name: "Clear filters" }).click();
    await page.waitForURL(`${gateway.url}/dashboard/usage`);
    await page.locator("#page:not([aria-busy])").waitFor();
    expect(await page.locator("table.usage tbody tr:not(.usage-detail)").count()).toBe(1);
  });

  test("a page past the end keeps the filters and offers the first page", async () => {
    await goTo("/dashboard/usage?status=success&page=99");
    expect(await page.getByText("This page could not be loaded").count()).toBe(0);
    expect(await page.getByLabel("Status").inputValue()).toBe("success");
    await page.getByRole("link", { name: "Go to the first page" }).click();
    await page.waitForURL(`${gateway.url}/dashboard/usage?status=success`);
    await page.locator("#page:not([aria-busy])").waitFor();
    expect(await page.locator("table.usage tbody tr:not(.usage-detail)").count()).toBe(1);
    await goTo("/dashboard/usage?page=7");
    await page.getByRole("link", { name: "Go to the first page" }).waitFor();
    await screenshot(page, "usage-page-past-the-end");
  });

  test("without Stripe the packs are shown as unavailable, with no Buy button and no promise of a checkout", async () => {
    await goTo("/dashboard/topup");
    expect(await page.getByRole("button", { name: /^Buy/ }).count()).toBe(0);
    expect(await page.getByText("You pay on Stripe's secure checkout page").count()).toBe(0);
    await page.getByText("Credit packs cannot be bought here at the moment").waitFor();
    expect(await page.locator(".pack").count()).toBe(4);
    expect(await page.getByText("Unavailable").count()).toBe(4);
    await screenshot(page, "topup-unavailable");
  });

  test("back from Stripe, the page says the payment is being confirmed rather than that it went through", async () => {
    await goTo("/dashboard/topup?checkout=success&session_id=cs_test_unknown");
    expect(await page.getByText("Your payment went through").count()).toBe(0);
    await page.getByText("Stripe is confirming your payment").waitFor();
    // The balance as it is (cut to the cent, $4.999996 exactly after the request), not as a payment would make it.
    expect(await page.getByText(/Current balance/).textContent()).toBe("Current balance: $4.99");
    await screenshot(page, "topup-returned");
  });

  test("no page raised a script error or broke the Content-Security-Policy", () => {
    expect(tab.errors).toEqual([]);
  });
});
