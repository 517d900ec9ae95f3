// A new account's overview says there is no spend yet instead of 30 days of $0.00, and the
// Models page narrows its catalog as one types into its search box.
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { useProviderDashboard } from "./support/dashboard-world.ts";
import { layoutProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

describeInBrowser("a new account's overview and the models' search", () => {
  const world = useProviderDashboard();
  let customer: SignedIn;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    customer = await signUpUser(world.gateway.url);
    await verifyEmail(world.gateway.store, customer.email);
  });

  const open = async (path: string, width: number): Promise<Page> => {
    const tab = await openTab(world.browser, { width, height: 844 });
    tabs.push(tab);
    await signIn(tab, customer);
    tab.page.setDefaultTimeout(8_000);
    await tab.page.goto(`${world.gateway.url}${path}`);
    await tab.page.locator("#page:not([aria-busy])").waitFor();
    return tab.page;
  };

  for (const width of [390, 1280]) {
    test(`at ${width} px a new account's overview says there is no spend yet, with no table of empty days`, async () => {
      const page = await open("/dashboard", width);
      await page.getByText("No spend yet. Requests made with your API keys show here, day by day.").waitFor();
      expect(await page.locator("main table").count()).toBe(0);
      expect(await page.getByRole("link", { name: "Create an API key" }).count()).toBe(1);
      await screenshot(page, `overview-empty-${width}`);
      expect(await layoutProblems(page)).toEqual([]);
    });
  }

  test("the Models page's search box narrows the catalog as one types, and says when nothing matches", async () => {
    const page = await open("/dashboard/models", 1280);
    const rows = page.locator("main table tbody tr:visible");
    const all = await rows.count();
    await page.getByLabel("Search models").fill("grok");
    const ids = await rows.locator("td:first-child").allTextContents();
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(all);
    for (const id of ids) expect(id).toContain("grok");
    await page.getByText(`${ids.length} of ${all} models match “grok”.`).waitFor();
    await screenshot(page, "models-search");
    await page.getByLabel("Search models").fill("no such model");
    await page.getByText("No model matches “no such model”.").waitFor();
    expect(await rows.count()).toBe(0);
  });

  test("no page raised a script error", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
