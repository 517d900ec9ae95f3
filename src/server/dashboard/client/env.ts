import { PAGES, RETURN_PARAM, type PageName } from "../page-table.ts";

/** BASE_PATH, as the server wrote it into the page. */
export const basePath = document.body.dataset.basePath ?? "";

/** A dashboard page's address, with an optional query. */
export const pageUrl = (page: PageName, query?: Record<string, string>): string =>
  basePath + PAGES[page].path + (query ? `?${new URLSearchParams(query)}` : "");

/** The sign-in page, returning to where the user is now. */
export const signInUrl = (): string => pageUrl("signin", { [RETURN_PARAM]: location.pathname + location.search });

/** Where to go after signing in: the page named by `next` if it is a signed-in dashboard page (never another site). */
export function returnUrl(): string {
  const next = new URLSearchParams(location.search).get(RETURN_PARAM);
  const target = next === null ? null : URL.parse(next, location.origin);
  const known = Object.values(PAGES).some((page) => page.signedIn && basePath + page.path === target?.pathname);
  return target && known && target.origin === location.origin ? target.pathname + target.search : pageUrl("overview");
}
