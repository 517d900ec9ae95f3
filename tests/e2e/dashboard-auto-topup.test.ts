// The Top up page's automatic top-up form in headless Chromium, on a desktop and a phone: turned
// on, its card saved by a purchase, refused amounts shown beside their fields, turned off.
import { expect, setDefaultTimeout, test } from "bun:test";
import { verifyEmail } from "../support/accounts.ts";
import { deliver, paidSession, stripeEvent } from "../support/fake-stripe.ts";
import { readJson } from "../support/http.ts";
import { signUpUser } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn } from "./support/browser.ts";
import { layoutProblems } from "./support/layout.ts";
import { useStripeDashboard } from "./support/dashboard-world.ts";

setDefaultTimeout(60_000);

describeInBrowser("automatic top-up on the Top up page", () => {
  const world = useStripeDashboard();

  test.each([[1280], [390]])("at %i px: turned on, a purchase saves the card, a refused maximum is shown at its field, turned off", async (width) => {
    const user = await signUpUser(world.gateway.url);
    await verifyEmail(world.gateway.store, user.email, "0");
    const tab = await openTab(world.browser, { width });
    const { page } = tab;
    await signIn(tab, user);
    const open = async () => {
      await page.goto(`${world.gateway.url}/dashboard/topup`);
      await page.locator("#page:not([aria-busy])").waitFor();
    };
    const section = page.locator("section.auto-topup");
    await open();
    expect(await section.getByRole("heading", { name: "Automatic top-up" }).isVisible()).toBe(true);
    expect(await section.locator(".badge").textContent()).toBe("Off");

    // A maximum below the pack's price: the server's refusal, worded with the field's label.
    await section.getByLabel("Pack to buy").selectOption("pro");
    await section.getByLabel("When the balance falls below (USD)").fill("10");
    await section.getByLabel("Spend at most per month (USD)").fill("40");
    await section.getByRole("button", { name: "Turn on" }).click();
    const error = section.locator(".field").filter({ has: page.getByLabel("Spend at most per month (USD)") }).locator(".field-error");
    await error.waitFor();
    expect(await error.textContent()).toBe("Spend at most per month (USD) must be at least the Pro pack's price (50 USD)");
    await section.getByLabel("Spend at most per month (USD)").fill("150");
    await section.getByRole("button", { name: "Turn on" }).click();
    await section.getByRole("button", { name: "Save" }).waitFor();
    expect(await section.textContent()).toContain("The card of your next purchase is saved for it");
    expect(await readJson(await user.send("GET", "/settings/auto-topup"))).toMatchObject({ enabled: true, packId: "pro", thresholdUsd: "10.00", monthlyMaxUsd: "150.00" });

    // The purchase that saves the card, paid at Stripe.
    const { sessionId } = await readJson(await user.send("POST", "/checkout", { packId: "builder" }));
    expect((await deliver(world.gateway.url, stripeEvent("checkout.session.completed", paidSession(world.fake.sessions.get(sessionId)!)))).status).toBe(200);
    await open();
    expect(await section.textContent()).toContain("Charging your saved Visa ending 4242.");
    expect(await section.getByLabel("Pack to buy").inputValue()).toBe("pro");
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, `topup-auto-on-${width}`);

    await section.getByRole("button", { name: "Turn off and forget the card" }).click();
    await section.getByRole("button", { name: "Turn on" }).waitFor();
    expect(await section.locator(".badge").textContent()).toBe("Off");
    expect(await readJson(await user.send("GET", "/settings/auto-topup"))).toMatchObject({ enabled: false, cardSaved: false });
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, `topup-auto-off-${width}`);
    expect(tab.errors).toEqual([]);
    await tab.context.close();
  });
});
