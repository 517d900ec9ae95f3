import { isConsolePage, ORG_PARAM, PAGES, RETURN_PARAM, type ActingFor, type PageName } from "../page-table.ts";

/** BASE_PATH, as the server wrote it into the page. */
export const basePath = document.body.dataset.basePath ?? "";

/**
 * The organization this page acts for, as the server found the person's membership when it
 * served the page (`?org=` in the address); null on a personal page.
 */
export const actingFor: ActingFor | null = (() => {
  const { orgId, orgName, orgRole, personId } = document.body.dataset;
  return orgId && orgName !== undefined && personId && (orgRole === "owner" || orgRole === "admin" || orgRole === "member")
    ? { id: orgId, name: orgName, role: orgRole, personId }
    : null;
})();

/** Whether the person runs what it acts for: its personal account, or an organization as an owner or admin. */
export const manages = (): boolean => actingFor === null || actingFor.role !== "member";

/** The organization named in the address, whether or not the person belongs to it. */
const orgInAddress = (): string | null => new URLSearchParams(location.search).get(ORG_PARAM);

/**
 * `path` with `?org=` added while acting for an organization: the one place every API call and
 * every link within the account's pages gets it, so a reload or a shared link stays in it.
 */
export function withOrg(path: string, orgId: string | null = orgInAddress()): string {
  if (orgId === null || orgId === "") return path;
  const [base, query = ""] = path.split("?", 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set(ORG_PARAM, orgId);
  return `${base}?${params}`;
}

/** A dashboard page's address, with an optional query; the account's pages keep the organization acted for. */
export const pageUrl = (page: PageName, query?: Record<string, string>): string => {
  const path = basePath + PAGES[page].path + (query && Object.keys(query).length > 0 ? `?${new URLSearchParams(query)}` : "");
  return isConsolePage(page) || !PAGES[page].signedIn ? path : withOrg(path);
};

/** The sign-in page, returning to where the user is now. */
export const signInUrl = (): string => pageUrl("signin", { [RETURN_PARAM]: location.pathname + location.search });

/** Where to go after signing in: the page named by `next` if it is a signed-in dashboard page (never another site). */
export function returnUrl(): string {
  const next = new URLSearchParams(location.search).get(RETURN_PARAM);
  const target = next === null ? null : URL.parse(next, location.origin);
  const known = Object.values(PAGES).some((page) => page.signedIn && basePath + page.path === target?.pathname);
  return target && known && target.origin === location.origin ? target.pathname + target.search : pageUrl("overview");
}
