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
}

export const PAGES = {
  overview: { path: "/dashboard", title: "Overview", signedIn: true },
  keys: { path: "/dashboard/keys", title: "API keys", signedIn: true },
  usage: { path: "/dashboard/usage", title: "Usage", signedIn: true },
  models: { path: "/dashboard/models", title: "Models", signedIn: true },
  estimator: { path: "/dashboard/estimator", title: "Estimator", signedIn: true },
  purchases: { path: "/dashboard/purchases", title: "Purchases", signedIn: true },
  topup: { path: "/dashboard/topup", title: "Top up", signedIn: true },
  settings: { path: "/dashboard/settings", title: "Settings", signedIn: true },
  security: { path: "/dashboard/security", title: "Security", signedIn: true },
  admin: { path: "/dashboard/admin", title: "Console", signedIn: true, operator: true },
  adminAccounts: { path: "/dashboard/admin/accounts", title: "Accounts", signedIn: true, operator: true },
  adminCatalog: { path: "/dashboard/admin/catalog", title: "Catalog", signedIn: true, operator: true },
  adminAudit: { path: "/dashboard/admin/audit", title: "Audit log", signedIn: true, operator: true },
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

export const isPageName = (value: unknown): value is PageName =>
  typeof value === "string" && Object.hasOwn(PAGES, value);

/** The query parameter of the sign-in page naming where to return: a signed-in page's path and query. */
export const RETURN_PARAM = "next";
