// The dashboard's pages, read by the server (routes, the page shell) and by the browser
// script (links, where to go after signing in). Paths are relative to BASE_PATH.

interface PageSpec {
  path: string;
  title: string;
  /** Shown only to a signed-in user; others are sent to the sign-in page, and back after it. */
  signedIn: boolean;
}

export const PAGES = {
  overview: { path: "/dashboard", title: "Overview", signedIn: true },
  keys: { path: "/dashboard/keys", title: "API keys", signedIn: true },
  usage: { path: "/dashboard/usage", title: "Usage", signedIn: true },
  topup: { path: "/dashboard/topup", title: "Top up", signedIn: true },
  settings: { path: "/dashboard/settings", title: "Settings", signedIn: true },
  signin: { path: "/dashboard/signin", title: "Sign in", signedIn: false },
  signup: { path: "/dashboard/signup", title: "Create an account", signedIn: false },
} as const satisfies Record<string, PageSpec>;

export type PageName = keyof typeof PAGES;

export const PAGE_NAMES = Object.keys(PAGES) as PageName[];

export const isPageName = (value: unknown): value is PageName =>
  typeof value === "string" && Object.hasOwn(PAGES, value);

/** The query parameter of the sign-in page naming where to return: a signed-in page's path and query. */
export const RETURN_PARAM = "next";
