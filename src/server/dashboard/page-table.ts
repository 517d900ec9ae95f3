// The dashboard's pages, read by the server (routes, the page shell) and by the browser
// script (links, where to go after signing in). Paths are relative to BASE_PATH.

interface PageSpec {
  path: string;
  title: string;
  /** Shown only to a signed-in user; others are sent to the sign-in page, and back after it. */
  signedIn: boolean;
  /** Shown to anyone, signed in or not: the pages e-mailed links open, on whatever device. */
  anyone?: true;
  /** The operator console's pages: other signed-in accounts are answered 403. */
  operator?: boolean;
  /** Only while acting for an organization (`?org=`): listed in the navigation then alone. */
  orgOnly?: true;
  /** In an organization, for its owners and admins: what a member is told it may not do ("buy credit for it"). */
  managers?: string;
  /** Reached by a link (an e-mail's), never listed in the navigation. */
  unlisted?: true;
}

export const PAGES = {
  overview: { path: "/dashboard", title: "Overview", signedIn: true },
  keys: { path: "/dashboard/keys", title: "API keys", signedIn: true },
  usage: { path: "/dashboard/usage", title: "Usage", signedIn: true },
  members: { path: "/dashboard/members", title: "Members", signedIn: true, orgOnly: true },
  models: { path: "/dashboard/models", title: "Models", signedIn: true },
  estimator: { path: "/dashboard/estimator", title: "Estimator", signedIn: true },
  purchases: { path: "/dashboard/purchases", title: "Purchases", signedIn: true, managers: "see its purchases" },
  topup: { path: "/dashboard/topup", title: "Top up", signedIn: true, managers: "buy credit packs for it" },
  settings: { path: "/dashboard/settings", title: "Settings", signedIn: true, managers: "change its settings and webhook" },
  security: { path: "/dashboard/security", title: "Security", signedIn: true },
  admin: { path: "/dashboard/admin", title: "Console", signedIn: true, operator: true },
  adminAccounts: { path: "/dashboard/admin/accounts", title: "Accounts", signedIn: true, operator: true },
  adminCatalog: { path: "/dashboard/admin/catalog", title: "Catalog", signedIn: true, operator: true },
  adminOrgs: { path: "/dashboard/admin/orgs", title: "Organizations", signedIn: true, operator: true },
  adminAudit: { path: "/dashboard/admin/audit", title: "Audit log", signedIn: true, operator: true },
  invitation: { path: "/dashboard/invitations/accept", title: "Join an organization", signedIn: true, unlisted: true },
  signin: { path: "/dashboard/signin", title: "Sign in", signedIn: false },
  signup: { path: "/dashboard/signup", title: "Create an account", signedIn: false },
  forgot: { path: "/dashboard/forgot", title: "Forgot your password?", signedIn: false },
  verify: { path: "/dashboard/verify", title: "Confirm your e-mail address", signedIn: false, anyone: true },
  reset: { path: "/dashboard/reset", title: "Choose a new password", signedIn: false, anyone: true },
} as const satisfies Record<string, PageSpec>;

export type PageName = keyof typeof PAGES;

export const PAGE_NAMES = Object.keys(PAGES) as PageName[];

/** Whether a page is shown to signed-in users and visitors alike. */
export const forAnyone = (name: PageName): boolean => "anyone" in PAGES[name];
/** Whether a page belongs to the operator console. */
export const isConsolePage = (name: PageName): boolean => (PAGES[name] as PageSpec).operator === true;

const spec = (name: PageName): PageSpec => PAGES[name];
/** Whether a page is listed only while acting for an organization. */
export const isOrgOnly = (name: PageName): boolean => spec(name).orgOnly === true;
/** What a member of an organization is told it may not do on this page; null when a member may use it. */
export const managersOnly = (name: PageName): string | null => spec(name).managers ?? null;
/** Whether the navigation lists the page. */
export const isListed = (name: PageName): boolean => spec(name).unlisted !== true;

/** The query parameter naming the organization the signed-in person acts for. */
export const ORG_PARAM = "org";

export const isPageName = (value: unknown): value is PageName =>
  typeof value === "string" && Object.hasOwn(PAGES, value);

/** The query parameter of the sign-in page naming where to return: a signed-in page's path and query. */
export const RETURN_PARAM = "next";

/** The organization a page is shown for (`?org=`), with the signed-in person's role there. */
export interface ActingFor {
  id: string;
  name: string;
  role: "owner" | "admin" | "member";
  /** The signed-in person's user id, as the members list names it. */
  personId: string;
}

/** Whether a page is open to the person: in an organization, a member is kept from what owners and admins run. */
export const mayUse = (name: PageName, org: ActingFor | null): boolean =>
  org === null ? !isOrgOnly(name) : org.role !== "member" || managersOnly(name) === null;
