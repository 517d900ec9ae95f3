import { Elysia } from "elysia";
import { hashSessionToken } from "../../core/accounts/session.ts";
import { catalogModelView } from "../../core/admin/rules.ts";
import { accountState } from "../../core/accounts/state.ts";
import { formatUsd } from "../../core/money.ts";
import type { Account, ModelStore } from "../../core/store.ts";
import { CREDIT_PACKS, PACK_IDS } from "../../core/checkout/packs.ts";
import type { Config } from "../../config.ts";
import type { AppDeps } from "../deps.ts";
import { sessionToken } from "../session.ts";
import { clientScript, styleSheet } from "./assets.ts" with { type: "macro" };
import { forAnyone, isConsolePage, mayUse, ORG_PARAM, PAGE_NAMES, PAGES, RETURN_PARAM, type ActingFor, type PageName } from "./page-table.ts";
import { renderNotFound, renderShell } from "./shell.ts";

interface Asset {
  path: string;
  body: string;
  type: string;
}

// The content's hash is in the name, so a browser may keep each version for good.
const asset = (name: string, extension: string, body: string, type: string): Asset => ({
  path: `/dashboard/assets/${name}.${Bun.hash(body).toString(36)}.${extension}`,
  body,
  type,
});
const SCRIPT = asset("dashboard", "js", clientScript(), "text/javascript; charset=utf-8");
const STYLES = asset("dashboard", "css", styleSheet(), "text/css; charset=utf-8");

// Scripts and styles only from the gateway itself: nothing injected into a page can run.
// The referrer stays on this site, so the checkout's session id never leaves it in a Referer;
// "same-origin" still lets the browser send Origin on the page's own writes, which the CSRF
// check requires ("no-referrer" would turn it into "Origin: null").
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

/** The packs, each saying whether it can be bought here: Stripe's key and the pack's price are both configured. */
const packs = (stripe: Config["stripe"]) => PACK_IDS.map((id) => ({
  id, name: CREDIT_PACKS[id].name, priceUsd: CREDIT_PACKS[id].priceUsd, creditsUsd: formatUsd(CREDIT_PACKS[id].credits, 2),
  purchasable: stripe.secretKey !== undefined && stripe.prices[id] !== undefined,
}));

/**
 * Facts a page needs beside what the JSON endpoints answer, read when the page is served: the
 * credit packs (and whether Stripe is set up to sell them), and the live catalog for the Models page (with the cached-input price once the
 * catalog carries one, which `GET /models` may not show: it keeps exactly the spec's fields).
 */
async function pageData(name: PageName, store: Pick<ModelStore, "listModels">, stripe: Config["stripe"]): Promise<unknown> {
  if (name === "topup") return { packs: packs(stripe) };
  if (name === "models") return { models: (await store.listModels()).map(catalogModelView) };
  return undefined;
}

type OrgLookup = Pick<AppDeps["store"], "findMembership">;

/**
 * The organization a signed-in page is shown for (`?org=`), looked up as the account endpoints
 * look it up: null without one, "missing" when the person does not belong to it (or it is gone).
 */
async function actingFor(store: OrgLookup, request: Request, account: Account | null | undefined, page: PageName): Promise<ActingFor | null | "missing"> {
  const orgId = new URL(request.url).searchParams.get(ORG_PARAM);
  if (!orgId || !account || isConsolePage(page)) return null;
  const membership = await store.findMembership(orgId, account.id);
  return membership ? { id: membership.org.id, name: membership.org.name, role: membership.role, personId: account.id } : "missing";
}

/** What stands in for a page's data when it may not be shown for the organization, with the status to answer. */
const orgRefusal = (name: PageName, org: ActingFor | null | "missing"): { data: unknown; status: number } | null => {
  if (org === "missing") return { data: { orgMissing: true }, status: 404 };
  if (org !== null && !mayUse(name, org)) return { data: { orgForbidden: true }, status: 403 };
  return null;
};

const redirect = (location: string) => new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

/**
 * The dashboard's pages and their script and styles, under BASE_PATH like every route. A page
 * for signed-in users sends anyone else to sign in (and back afterwards); the sign-in pages send
 * a signed-in user to the overview; the pages e-mailed links open are shown to both.
 */
export const dashboardRoutes = ({ config, store, now }: AppDeps) => {
  const { basePath } = config;
  const assets = { scriptPath: basePath + SCRIPT.path, stylePath: basePath + STYLES.path };

  /** The session's account; undefined without a valid session (null when its account row is gone). */
  const signedIn = async (request: Request): Promise<Account | null | undefined> => {
    const token = sessionToken(request);
    return token === null ? undefined : (await store.findSession(hashSessionToken(token), now()))?.account;
  };

  const app = new Elysia({ name: "dashboard" });
  for (const name of PAGE_NAMES) {
    const spec = PAGES[name];
    app.get(spec.path, async ({ request }) => {
      const account = await signedIn(request);
      if (spec.signedIn && account === undefined) {
        const url = new URL(request.url);
        const back = new URLSearchParams({ [RETURN_PARAM]: url.pathname + url.search });
        return redirect(`${basePath}${PAGES.signin.path}?${back}`);
      }
      if (!spec.signedIn && account !== undefined && !forAnyone(name)) return redirect(basePath + PAGES.overview.path);
      // The same test as the console's endpoints: an active account with the operator flag.
      const operator = account?.isAdmin === true && accountState(account) === "active";
      // Anyone else gets the console's shell with 403 and a notice in place of its content.
      const refused = isConsolePage(name) && !operator;
      const org = await actingFor(store, request, account, name);
      // A member of an organization opening what only its owners and admins may use is told so, as a customer is on the console.
      const orgRefused = orgRefusal(name, org);
      const data = refused ? { forbidden: true } : orgRefused ? orgRefused.data : await pageData(name, store, config.stripe);
      const status = refused ? 403 : orgRefused?.status ?? 200;
      const shell = renderShell({ page: name, basePath, assets, data, operator, org: org === "missing" ? null : org });
      return new Response(shell, { status, headers: PAGE_HEADERS });
    });
  }
  // Any other address under the dashboard: its own 404 page, not the API's JSON.
  app.get("/dashboard/*", () => new Response(renderNotFound({ basePath, assets }), { status: 404, headers: PAGE_HEADERS }));
  for (const { path, body, type } of [SCRIPT, STYLES]) {
    app.get(path, () => new Response(body, {
      headers: { "content-type": type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" },
    }));
  }
  return app;
};
