// The dashboard's browser script. The server sends every page as the same shell naming the
// page (`data-page`); this fills its content from the JSON endpoints.
// tsconfig's lib is ESNext alone (the server has no document); the browser's types come in here.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="dom.asynciterable" />
import { isPageName, managersOnly, PAGES, type PageName } from "../page-table.ts";
import { call } from "./api.ts";
import { verifyBanner } from "./banner.ts";
import { h } from "./dom.ts";
import { actingFor, pageUrl } from "./env.ts";
import { renderSwitcher, switchedUrl } from "./org-switcher.ts";
import { renderForgot, renderReset, renderVerify } from "./pages/email-links.ts";
import { renderAdmin } from "./pages/admin.ts";
import { renderAdminAccounts } from "./pages/admin-accounts.ts";
import { renderAdminAudit } from "./pages/admin-audit.ts";
import { renderAdminCatalog } from "./pages/admin-catalog.ts";
import { renderAdminOrgs } from "./pages/admin-orgs.ts";
import { renderInvitation } from "./pages/invitation.ts";
import { renderMembers } from "./pages/members.ts";
import { renderEstimator } from "./pages/estimator.ts";
import { renderKeys } from "./pages/keys.ts";
import { renderModels } from "./pages/models.ts";
import { renderPurchases } from "./pages/purchases.ts";
import { renderOverview } from "./pages/overview.ts";
import { renderSecurity } from "./pages/security.ts";
import { renderSettings } from "./pages/settings.ts";
import { renderSignIn } from "./pages/sign-in.ts";
import { renderTopUp } from "./pages/topup.ts";
import { renderUsage } from "./pages/usage.ts";

const RENDERERS: Record<PageName, (root: HTMLElement, data: never) => Promise<void>> = {
  overview: renderOverview,
  keys: renderKeys,
  usage: renderUsage,
  members: renderMembers,
  models: renderModels,
  estimator: renderEstimator,
  purchases: renderPurchases,
  topup: renderTopUp,
  settings: renderSettings,
  security: renderSecurity,
  admin: renderAdmin,
  adminAccounts: renderAdminAccounts,
  adminCatalog: renderAdminCatalog,
  adminOrgs: renderAdminOrgs,
  adminAudit: renderAdminAudit,
  invitation: renderInvitation,
  signin: (root) => renderSignIn(root, "signin"),
  signup: (root) => renderSignIn(root, "signup"),
  forgot: renderForgot,
  verify: renderVerify,
  reset: renderReset,
};

/** The e-mail confirmation banner, above a signed-in page's content; a failure to read it leaves the page alone. */
async function showBanner(root: HTMLElement): Promise<void> {
  const banner = await verifyBanner().catch(() => null);
  if (banner) root.before(banner);
}

/** What the server put in the page's JSON block, if anything. */
function pageData(): unknown {
  const block = document.getElementById("page-data");
  return block?.textContent ? JSON.parse(block.textContent) : undefined;
}

/**
 * What the page says in place of its content when it is not for this person in the organization
 * in its address: one it does not belong to, or a page only its owners and admins may use.
 */
function orgRefusal(page: PageName, data: { orgMissing?: boolean; orgForbidden?: boolean } | undefined): HTMLElement | null {
  const personal = () => h("a", { href: switchedUrl(null) }, "your personal account");
  if (data?.orgMissing) {
    return h("p", { class: "notice error", role: "alert" },
      "This organization does not exist, or you are not one of its members. Go back to ", personal(), ".");
  }
  if (data?.orgForbidden && actingFor) {
    return h("p", { class: "notice info", role: "status" },
      `Only owners and admins of ${actingFor.name} can ${managersOnly(page) ?? "use this page"}. Ask one of them, or go to `,
      h("a", { href: pageUrl("overview") }, `${actingFor.name}'s overview`), ".");
  }
  return null;
}

async function signOut(): Promise<void> {
  try {
    await call("POST", "/auth/logout");
  } finally {
    location.assign(pageUrl("signin"));
  }
}

async function start(): Promise<void> {
  const root = document.getElementById("page");
  const page = document.body.dataset.page;
  if (!root || !isPageName(page)) return;
  document.getElementById("sign-out")?.addEventListener("click", () => void signOut());
  // On a phone the links are one row that scrolls sideways: the current page's is brought into view.
  const here = document.querySelector<HTMLElement>('.site-header nav a[aria-current="page"]');
  here?.parentElement?.parentElement?.scrollTo({ left: here.offsetLeft - 16 });
  const switcher = document.getElementById("account-switcher");
  // The switcher is a convenience: a failure to list the organizations leaves the page alone.
  if (switcher) void renderSwitcher(switcher).catch(() => switcher.replaceChildren());
  const data = pageData();
  try {
    const refusal = orgRefusal(page, data as never);
    if (refusal) root.replaceChildren(refusal);
    else await Promise.all([RENDERERS[page](root, data as never), PAGES[page].signedIn ? showBanner(root) : null]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    root.replaceChildren(h("p", { class: "notice error", role: "alert" }, `This page could not be loaded: ${message} Reload the page to try again.`));
  } finally {
    root.removeAttribute("aria-busy");
  }
}

void start();
