// The webhook settings' deliveries in headless Chromium, on a desktop and a phone: a test event
// sent, its delivery listed, its payload opened (the body the receiver got), and redelivered.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser } from "../support/session.ts";
import { startGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";
import { startReceiver } from "../support/webhook-receiver.ts";
import { describeInBrowser, launchChromium, openTab, screenshot, signIn } from "./support/browser.ts";
import { layoutProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

describeInBrowser("webhook deliveries on the Settings page", () => {
  const receiver = startReceiver();
  let gateway: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    gateway = await startGateway("sqlite", { WEBHOOK_ALLOW_PRIVATE: "1", ALERT_INTERVAL_MS: "60000" });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    receiver.stop();
  });

  test.each([[1280], [390]])("at %i px: a test event is sent and listed, its payload shown, and redelivered", async (width) => {
    const user = await signUpUser(gateway.url);
    await verifyEmail(gateway.store, user.email);
    expect((await user.send("PUT", "/settings/webhook", { url: receiver.url })).status).toBe(200);
    const tab = await openTab(browser, { width });
    const { page } = tab;
    await signIn(tab, user);
    await page.goto(`${gateway.url}/dashboard/settings`);
    await page.locator("#page:not([aria-busy])").waitFor();
    expect(await page.getByText("No events yet.").isVisible()).toBe(true);

    await page.getByRole("button", { name: "Send test event" }).click();
    const said = page.getByRole("status").filter({ hasText: "Test event" });
    await said.waitFor();
    const id = /Test event (\S+) queued/.exec((await said.textContent()) ?? "")![1]!;
    await waitFor(() => receiver.received.some((r) => r.event.id === id), "the test event", 5_000);
    const body = receiver.received.find((r) => r.event.id === id)!.body;

    const deliveries = page.getByRole("region", { name: "Recent webhook deliveries" });
    await deliveries.locator("tr", { hasText: "webhook.test" }).first().waitFor();
    await page.getByText(`Show payload of webhook.test ${id}`).click();
    const payload = deliveries.locator("details[open] pre");
    expect(JSON.parse((await payload.textContent())!)).toEqual(JSON.parse(body));
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, `settings-webhook-payload-${width}`);

    await page.getByRole("button", { name: `Redeliver of webhook.test ${id}` }).click();
    await page.getByRole("status").filter({ hasText: "queued again" }).waitFor();
    await waitFor(() => receiver.received.filter((r) => r.event.id === id).length === 2, "the redelivery", 5_000);
    expect(receiver.received.filter((r) => r.event.id === id).map((r) => r.body)).toEqual([body, body]);
    await deliveries.getByText("(redelivery)").waitFor();
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, `settings-webhook-redelivered-${width}`);
    expect(tab.errors).toEqual([]);
    await tab.context.close();
  });
});
