// An organization on a phone (390 px) and a desktop: every page of the navigation in sight (none
// scrolled off the side), the switcher naming the organization and the role, the only owner told
// why it cannot leave rather than offered a Leave that fails, and a member shown its own cap and
// spend only.
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { readJson } from "../support/http.ts";
import { signUpUser, type Browser as SignedIn } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { useProviderDashboard } from "./support/dashboard-world.ts";
import { layoutProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

describeInBrowser("an organization on a phone: navigation, switcher, leaving", () => {
  const world = useProviderDashboard();
  let owner: SignedIn;
  let member: SignedIn;
  let orgId = "";
  const tabs: Tab[] = [];

  beforeAll(async () => {
    [owner, member] = await Promise.all([signUpUser(world.gateway.url), signUpUser(world.gateway.url)]);
    await verifyEmail(world.gateway.store, owner.email);
    await verifyEmail(world.gateway.store, member.email);
    ({ id: orgId } = await readJson(await owner.send("POST", "/orgs", { name: "Acme Robotics" })));
    const memberId = (await world.gateway.store.findAccountByEmail(member.email))!.id;
    await world.gateway.store.addMember({ orgId, userId: memberId, email: member.email, role: "member", actor: { userId: null, label: "test", ip: null }, now: Date.now() });
  });

  const open = async (who: SignedIn, path: string, size = PHONE): Promise<Page> => {
    const tab = await openTab(world.browser, size);
    tabs.push(tab);
    await signIn(tab, who);
    tab.page.setDefaultTimeout(8_000);
    await tab.page.goto(`${world.gateway.url}${path}?org=${orgId}`);
    await tab.page.locator("#page:not([aria-busy])").waitFor();
    await tab.page.locator(".account-menu summary").waitFor();
    return tab.page;
  };

  test("at 390 px every page of the navigation is on screen, and the switcher says the organization and the role", async () => {
    const page = await open(owner, "/dashboard/members");
    await screenshot(page, "phone-org-navigation");
    const links = await page.locator(".site-header nav a").evaluateAll((all) => all.map((a) => {
      const box = a.getBoundingClientRect();
      return { text: a.textContent, inView: box.width > 0 && box.left >= 0 && box.right <= document.documentElement.clientWidth };
    }));
    expect(links.map((l) => l.text)).toContain("Security");
    expect(links.filter((l) => !l.inView)).toEqual([]);
    const summary = page.locator(".account-menu summary");
    expect((await summary.innerText()).replace(/\s+/g, " ").trim()).toBe("Account: Acme Robotics (Owner)");
    expect(await summary.locator(".account-name").evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await layoutProblems(page)).toEqual([]);
  });

  test("the only owner is not offered Leave, and is told why", async () => {
    const page = await open(owner, "/dashboard/members", DESKTOP);
    await page.locator("main table").waitFor();
    expect(await page.getByRole("button", { name: /Leave organization/ }).count()).toBe(0);
    await page.getByText("You are its only owner: make another member an owner before you leave.").waitFor();
    await screenshot(page, "members-only-owner");
  });

  test("a member may leave, and sees its own cap and spend only", async () => {
    const page = await open(member, "/dashboard/members", DESKTOP);
    await page.locator("main table").waitFor();
    expect(await page.getByRole("button", { name: /Leave organization/ }).count()).toBe(1);
    expect(await page.locator("main table tbody tr").count()).toBe(1);
    expect(await page.locator("main table").innerText()).not.toContain(owner.email);
  });

  test("no page raised a script error", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
