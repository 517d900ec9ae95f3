// The Purchases page's open checkout in headless Chromium, on a desktop and a phone: a link back
// to Stripe's page and a Cancel button; cancelled after confirming, the row says so.
import { expect, setDefaultTimeout, test } from "bun:test";
import { verifyEmail } from "../support/accounts.ts";
import { readJson } from "../support/http.ts";
import { signUpUser } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn } from "./support/browser.ts";
import { layoutProblems } from "./support/layout.ts";
import { useStripeDashboard } from "./support/dashboard-world.ts";

setDefaultTimeout(60_000);

describeInBrowser("an open checkout on the Purchases page", () => {
  const world = useStripeDashboard();

  test.each([[1280], [390]])("at %i px: continue to Stripe's page, or cancel after confirming", async (width) => {
    const user = await signUpUser(world.gateway.url);
    await verifyEmail(world.gateway.store, user.email, "0");
    const { sessionId, url } = await readJson(await user.send("POST", "/checkout", { packId: "pro" }));
    const tab = await openTab(world.browser, { width });
    const { page } = tab;
    await signIn(tab, user);
    await page.goto(`${world.gateway.url}/dashboard/purchases`);
    await page.locator("#page:not([aria-busy])").waitFor();

    const row = page.locator("tbody tr").first();
    expect(await row.locator(".badge").textContent()).toBe("Awaiting payment");
    const resume = row.getByRole("link", { name: /^Continue to payment/ });
    expect(await resume.getAttribute("href")).toBe(url);
    expect(await resume.getAttribute("target")).toBeNull();
    expect(await row.getByRole("button", { name: /^Cancel/ }).isVisible()).toBe(true);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, `purchases-open-${width}`);

    await row.getByRole("button", { name: /^Cancel/ }).click();
    await page.getByRole("button", { name: "Cancel checkout" }).click();
    await page.getByRole("status").filter({ hasText: "The Pro checkout is cancelled." }).waitFor();
    expect(await row.locator(".badge").textContent()).toBe("Expired or cancelled");
    expect(await row.getByRole("link", { name: /^Continue to payment/ }).count()).toBe(0);
    expect(await row.getByRole("button", { name: /^Cancel/ }).count()).toBe(0);
    expect(world.fake.sessions.get(sessionId)!.status).toBe("expired");
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, `purchases-cancelled-${width}`);
    expect(tab.errors).toEqual([]);
    await tab.context.close();
  });
});
