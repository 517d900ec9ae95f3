// Realistic names ("Production backend", grok-4-1-fast-reasoning, a long organization name and
// e-mail addresses) keep Usage's and Members' tables tables on a desktop (1280 px); only a
// phone (390 px) gets one card per row. A request's less used figures sit in a detail row.
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { verifyEmail } from "../support/accounts.ts";
import { hello, postChat } from "../support/chat.ts";
import { readJson } from "../support/http.ts";
import { signUpUser, uniqueEmail, type Browser as SignedIn } from "../support/session.ts";
import { describeInBrowser, openTab, screenshot, signIn, type Tab } from "./support/browser.ts";
import { useProviderDashboard } from "./support/dashboard-world.ts";
import { layoutProblems, moneyProblems } from "./support/layout.ts";

setDefaultTimeout(60_000);

const PHONE = { name: "phone", width: 390, height: 844 };
const DESKTOP = { name: "desktop", width: 1280, height: 800 };
const ORG_NAME = "Acme Robotics International Research and Development Holdings";

describeInBrowser("the usage and members tables with realistic names", () => {
  const world = useProviderDashboard();
  let owner: SignedIn;
  let orgId = "";
  const tabs: Tab[] = [];

  beforeAll(async () => {
    owner = await signUpUser(world.gateway.url, uniqueEmail("alexandra.konstantinopoulou-smith"));
    const teammate = await signUpUser(world.gateway.url, uniqueEmail("maximilian.von-hohenberg"));
    await verifyEmail(world.gateway.store, owner.email, "20");
    await verifyEmail(world.gateway.store, teammate.email);
    ({ id: orgId } = await readJson(await owner.send("POST", "/orgs", { name: ORG_NAME })));
    const teammateId = (await world.gateway.store.findAccountByEmail(teammate.email))!.id;
    const actor = { userId: null, label: "test", ip: null };
    await world.gateway.store.addMember({ orgId, userId: teammateId, email: teammate.email, role: "member", actor, now: Date.now() });
    expect((await owner.send("POST", `/orgs/${orgId}/transfers`, { usd: "10", idempotencyKey: "fund" })).status).toBe(200);
    const personal = (await readJson(await owner.send("POST", "/keys/generate", { name: "Production backend" }))).key;
    const inOrg = (await readJson(await owner.send("POST", `/keys/generate?org=${orgId}`, { name: "Production backend" }))).key;
    for (const key of [personal, inOrg]) {
      for (const model of ["grok-4-1-fast-reasoning", "gpt-4.1-nano", "grok-4-1-fast-reasoning"]) expect((await postChat(world.gateway.url, key, hello(model))).status).toBe(200);
      world.fake.behave({ status: 500 });
      for (let i = 0; i < 3; i++) await postChat(world.gateway.url, key, hello("grok-4-1-fast-reasoning"));
      world.fake.behave({});
    }
    // A partner's key kept to one model, refused another: a status of its own in Usage.
    const partner = (await readJson(await owner.send("POST", "/keys/generate", { name: "Partner integration", allowedModels: ["gpt-4.1-nano"] }))).key;
    expect((await postChat(world.gateway.url, partner, hello("grok-4-1-fast-reasoning"))).status).toBe(403);
  });

  const open = async (size: typeof DESKTOP, path: string, ready = "main table"): Promise<Page> => {
    const tab = await openTab(world.browser, size);
    tabs.push(tab);
    await signIn(tab, owner);
    tab.page.setDefaultTimeout(8_000);
    await tab.page.goto(`${world.gateway.url}${path.replace("ORG", orgId)}`);
    await tab.page.locator("#page:not([aria-busy])").waitFor();
    await tab.page.locator(ready).first().waitFor();
    await tab.page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    return tab.page;
  };
  /** Whether the page's own table (not a chart's) is shown as cards. */
  const stacked = (page: Page) => page.locator("main table.usage, main table:has(#members-caption)").evaluateAll((tables) => tables.map((t) => t.classList.contains("stacked")));

  const PAGES: [string, string][] = [
    ["usage", "/dashboard/usage"],
    ["usage-errors", "/dashboard/usage?status=error"],
    ["usage-refused", "/dashboard/usage?status=refused"],
    ["org-usage", "/dashboard/usage?org=ORG"],
    ["org-members", "/dashboard/members?org=ORG"],
  ];

  test.each(PAGES)("at 1280 px the table stays a table (%s)", async (label, path) => {
    const page = await open(DESKTOP, path);
    await screenshot(page, `desktop-tables-${label}`);
    expect({ label, stacked: await stacked(page) }).toEqual({ label, stacked: [false] });
    expect({ label, problems: await layoutProblems(page), money: await moneyProblems(page) }).toEqual({ label, problems: [], money: [] });
  });

  test.each(PAGES)("at 390 px each row is a card, nothing overflows (%s)", async (label, path) => {
    const page = await open(PHONE, path);
    await screenshot(page, `phone-tables-${label}`);
    expect({ label, stacked: await stacked(page) }).toEqual({ label, stacked: [true] });
    expect({ label, problems: await layoutProblems(page) }).toEqual({ label, problems: [] });
  });

  test("a request's detail row shows what the table leaves out: cached tokens, savings, latency", async () => {
    const page = await open(DESKTOP, "/dashboard/usage");
    const first = page.locator("main table.usage tbody tr").first();
    await first.getByRole("button", { name: /Details/ }).click();
    const detail = page.locator("main tbody tr.usage-detail:visible");
    await detail.waitFor();
    expect(await detail.innerText()).toMatch(/Cached tokens[\s\S]*Saved by caching[\s\S]*Latency/);
    await screenshot(page, "desktop-tables-usage-detail");
  });

  test("a request the key's allowlist refused reads Refused, with the refusal, and counts on the key", async () => {
    for (const size of [DESKTOP, PHONE]) {
      const page = await open(size, "/dashboard/usage?status=refused");
      const rows = page.locator("main table.usage tbody tr:not(.usage-detail)");
      expect(await rows.count()).toBe(1);
      expect(await rows.first().locator(".badge").innerText()).toBe("Refused");
      expect(await rows.first().innerText()).toContain("This API key may not use the model `grok-4-1-fast-reasoning`");
      expect(await rows.first().innerText()).toContain("Partner integration");
    }
    const keys = await open(DESKTOP, "/dashboard/keys", "main article");
    const card = keys.locator("main article", { hasText: "Partner integration" });
    expect(await card.innerText()).toMatch(/Requests\s+1\b/);
  });

  test("no page raised a script error", () => {
    expect(tabs.flatMap((t) => t.errors)).toEqual([]);
  });
});
