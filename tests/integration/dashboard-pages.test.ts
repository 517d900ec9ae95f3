import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { forAnyone, isConsolePage, isListed, isOrgOnly, managersOnly, PAGES, type PageName } from "../../src/server/dashboard/page-table.ts";
import { spawnServe, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { signInOperator } from "../support/operator.ts";
import { verifyEmail } from "../support/accounts.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { linkToken } from "../support/mail.ts";
import { signUpUser, type Browser } from "../support/session.ts";
import { useGateway } from "../support/server.ts";

const NAMES = Object.keys(PAGES) as PageName[];
const SIGNED_IN = NAMES.filter((name) => PAGES[name].signedIn);
const SIGNED_OUT = NAMES.filter((name) => !PAGES[name].signedIn && !forAnyone(name));
const ANYONE = NAMES.filter(forAnyone);
const CUSTOMER = SIGNED_IN.filter((name) => !isConsolePage(name));
/** Listed in a personal account's navigation. */
const LISTED = CUSTOMER.filter((name) => isListed(name) && !isOrgOnly(name));
const CONSOLE = SIGNED_IN.filter(isConsolePage);

const get = (url: string, cookie?: string) => fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
const assetPaths = (html: string) => ({
  script: /<script type="module" src="([^"]+)"/.exec(html)?.[1],
  style: /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1],
});

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

describeEachDialect("the dashboard's pages", (dialect) => {
  const gateway = useGateway(dialect, { BASE_PATH: "/api", SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
  let user: Browser;
  beforeAll(async () => {
    user = await signUpUser(gateway().url);
  });
  const origin = () => new URL(gateway().url).origin;

  test.each(SIGNED_IN)("%s sends a visitor without a session to sign in, remembering where they were going", async (name) => {
    const res = await get(`${gateway().url}${PAGES[name].path}?page=2`);
    expect(res.status).toBe(303);
    const next = encodeURIComponent(`/api${PAGES[name].path}?page=2`);
    expect(res.headers.get("location")).toBe(`/api/dashboard/signin?next=${next}`);
  });

  test.each(CUSTOMER)("%s is served to a signed-in user under BASE_PATH", async (name) => {
    const res = await get(`${gateway().url}${PAGES[name].path}`, user.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<body data-page="${name}" data-base-path="/api">`);
    expect(html).toContain(`<title>${PAGES[name].title} · Gateway</title>`);
    if (LISTED.includes(name)) expect(html).toContain(`<a href="/api${PAGES[name].path}" aria-current="page">`);
    else expect(html).not.toContain(`<a href="/api${PAGES[name].path}"`);
  });

  describe("acting for an organization (?org=)", () => {
    let owner: Browser;
    let member: Browser;
    let orgId: string;
    beforeAll(async () => {
      owner = await signUpUser(gateway().url);
      member = await signUpUser(gateway().url);
      for (const b of [owner, member]) await verifyEmail(gateway().store, b.email);
      orgId = (await (await owner.send("POST", "/orgs", { name: "Acme <Labs>" })).json()).id;
      expect((await owner.send("POST", `/orgs/${orgId}/invitations`, { email: member.email, role: "member" })).status).toBe(201);
      const token = await linkToken(smtp, member.email, "invitations/accept");
      expect((await member.send("POST", "/invitations/accept", { token })).status).toBe(200);
    });

    test("an owner's navigation keeps the organization in every link and lists Members", async () => {
      const res = await get(`${gateway().url}/dashboard/keys?org=${orgId}`, owner.cookie);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain(`data-org-id="${orgId}" data-org-name="Acme &lt;Labs&gt;" data-org-role="owner"`);
      for (const name of [...LISTED, "members" as const]) expect(html).toContain(`<a href="/api${PAGES[name].path}?org=${orgId}"`);
    });

    test.each(CUSTOMER.filter((name) => managersOnly(name) !== null))("%s is kept from a member: 403, unlisted, and said so in words", async (name) => {
      const res = await get(`${gateway().url}${PAGES[name].path}?org=${orgId}`, member.cookie);
      expect(res.status).toBe(403);
      const html = await res.text();
      expect(html).toContain('{"orgForbidden":true}');
      expect(html).toContain('data-org-role="member"');
      expect(html).not.toContain(`<a href="/api${PAGES[name].path}?org=${orgId}"`);
      expect(html).toContain(`<a href="/api${PAGES.members.path}?org=${orgId}"`);
    });

    test("a person outside the organization is told so, with a 404", async () => {
      const res = await get(`${gateway().url}/dashboard/keys?org=${orgId}`, user.cookie);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain('{"orgMissing":true}');
      expect(html).not.toContain("data-org-id");
    });
  });

  test.each(CONSOLE)("the console's %s page is 403 to a customer, whose navigation never links the console", async (name) => {
    const res = await get(`${gateway().url}${PAGES[name].path}`, user.cookie);
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain('<script type="application/json" id="page-data">{"forbidden":true}</script>');
    expect(html).not.toContain('href="/api/dashboard/admin"');
    expect(await (await get(`${gateway().url}/dashboard`, user.cookie)).text()).not.toContain("/dashboard/admin");
  });

  test.each(CONSOLE)("the console's %s page is served to an operator, with the console's navigation", async (name) => {
    const operator = await signInOperator(gateway().url, gateway().store);
    const res = await get(`${gateway().url}${PAGES[name].path}`, operator.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<a href="/api${PAGES[name].path}" aria-current="page">`);
    expect(html).toContain('<nav aria-label="Operator console">');
    expect(html).toContain('<a href="/api/dashboard">Dashboard</a>');
    expect(await (await get(`${gateway().url}/dashboard`, operator.cookie)).text()).toContain('<a href="/api/dashboard/admin">Operator console</a>');
  });

  test("the Models page carries the live catalog for the script to show", async () => {
    await gateway().store.updateModel("gpt-4o", { enabled: false });
    const html = await (await get(`${gateway().url}/dashboard/models`, user.cookie)).text();
    await gateway().store.updateModel("gpt-4o", { enabled: true });
    const data = JSON.parse(/<script type="application\/json" id="page-data">(.*)<\/script>/.exec(html)![1]!);
    expect(data.models).toHaveLength(21);
    expect(data.models[0]).toMatchObject({ id: "gpt-5.5", inputPerMillionUsd: "5.0000", outputPerMillionUsd: "30.0000" });
    expect(data.models.some((m: { id: string }) => m.id === "gpt-4o")).toBe(false);
  });

  test.each(SIGNED_OUT)("%s is served to a visitor and sends a signed-in user to the overview", async (name) => {
    expect((await get(`${gateway().url}${PAGES[name].path}`)).status).toBe(200);
    const res = await get(`${gateway().url}${PAGES[name].path}`, user.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/api/dashboard");
  });

  test.each(ANYONE)("%s (an e-mailed link's page) is served signed in and signed out alike", async (name) => {
    for (const cookie of [undefined, user.cookie]) {
      const res = await get(`${gateway().url}${PAGES[name].path}?token=abc`, cookie);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain(`<body data-page="${name}" data-base-path="/api">`);
    }
  });

  test("a session that has ended counts as none", async () => {
    const ended = await signUpUser(gateway().url);
    await ended.send("POST", "/auth/logout");
    expect((await get(`${gateway().url}/dashboard`, ended.cookie)).status).toBe(303);
  });

  test("pages forbid other sites' scripts and framing, are not cached, and keep the referrer on the site", async () => {
    const res = await get(`${gateway().url}/dashboard/signin`);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("the script and styles are served under BASE_PATH, named by their content and cached for good", async () => {
    const { script, style } = assetPaths(await (await get(`${gateway().url}/dashboard/signin`)).text());
    expect(script).toMatch(/^\/api\/dashboard\/assets\/dashboard\.[0-9a-z]+\.js$/);
    expect(style).toMatch(/^\/api\/dashboard\/assets\/dashboard\.[0-9a-z]+\.css$/);
    const js = await get(`${origin()}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    // One bundle: nothing left for the browser to fetch from elsewhere.
    const code = await js.text();
    expect(code).not.toMatch(/\bimport\s*[("'{*]|[}*]\s*from\s*["']|\bimport\s+[\w$]+\s+from\b/);
    expect(code).toContain("/auth/login");
    const css = await get(`${origin()}${style}`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toContain(":focus-visible");
  });

  test("the top-up page carries the four packs for the script to show, each unavailable without Stripe", async () => {
    const html = await (await get(`${gateway().url}/dashboard/topup`, user.cookie)).text();
    const data = JSON.parse(/<script type="application\/json" id="page-data">(.*?)<\/script>/.exec(html)![1]!);
    expect(data).toEqual({
      packs: [
        { id: "builder", name: "Builder", priceUsd: "25", creditsUsd: "30.00", purchasable: false },
        { id: "pro", name: "Pro", priceUsd: "50", creditsUsd: "60.00", purchasable: false },
        { id: "team", name: "Team", priceUsd: "100", creditsUsd: "120.00", purchasable: false },
        { id: "scale", name: "Scale", priceUsd: "200", creditsUsd: "250.00", purchasable: false },
      ],
    });
  });

  test("an unknown dashboard path is a 404 page in the dashboard's look, with a way on, not the API's JSON", async () => {
    for (const path of ["/dashboard/nope", "/dashboard/keys/extra"]) {
      const res = await get(`${gateway().url}${path}`, user.cookie);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const html = await res.text();
      expect(html).toContain("<h1>Page not found</h1>");
      expect(html).toContain(`href="${gateway().config.basePath}/dashboard"`); // the overview, under BASE_PATH
      expect(html).not.toContain('"error"');
    }
    // Real pages are still themselves.
    expect((await get(`${gateway().url}/dashboard/keys`, user.cookie)).status).toBe(200);
  });
});

describe("the compiled binary", () => {
  let testDb: TestDatabase;
  let serve: ServeProcess;
  beforeAll(async () => {
    testDb = await createTestDatabase("sqlite");
    serve = await spawnServe({ DATABASE_URL: testDb.url });
  });
  afterAll(async () => {
    await serve?.stop();
    await testDb?.drop();
  });

  test("serves the dashboard with its script and styles from inside itself", async () => {
    const page = await get(`${serve.url}/dashboard/signin`);
    expect(page.status).toBe(200);
    const { script, style } = assetPaths(await page.text());
    const js = await get(`${new URL(serve.url).origin}${script}`);
    expect(js.status).toBe(200);
    expect(await js.text()).toContain("/auth/login");
    expect((await get(`${new URL(serve.url).origin}${style}`)).status).toBe(200);
  });
});
