import { isConsolePage, isListed, mayUse, ORG_PARAM, PAGE_NAMES, PAGES, type ActingFor, type PageName } from "./page-table.ts";

interface ShellAssets {
  scriptPath: string;
  stylePath: string;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

// In a <script> data block only "</script" could end it early; JSON never needs a raw "<".
const jsonIsland = (data: unknown): string => JSON.stringify(data).replaceAll("<", "\\u003c");

/** A dashboard page's address; the account's pages keep the organization acted for. */
const pageHref = (basePath: string, name: PageName, org: ActingFor | null): string =>
  basePath + PAGES[name].path + (org && !isConsolePage(name) ? `?${ORG_PARAM}=${encodeURIComponent(org.id)}` : "");

/**
 * The links of the current page's part of the dashboard: the account's pages, or the console's.
 * An operator also gets a link across to the other part; other accounts never see the console's.
 * Acting for an organization, the links keep it, Members is listed, and a member is not shown
 * the pages its owners and admins alone may use.
 */
const navigation = (basePath: string, current: PageName, operator: boolean, org: ActingFor | null): string => {
  // A customer sent to a console page (answered 403) sees their own navigation, never the console's.
  const inConsole = operator && isConsolePage(current);
  const link = (name: PageName, label: string = PAGES[name].title) => {
    const currentAttr = name === current ? ' aria-current="page"' : "";
    return `<li><a href="${escapeHtml(pageHref(basePath, name, org))}"${currentAttr}>${escapeHtml(label)}</a></li>`;
  };
  const listed = (name: PageName) => PAGES[name].signedIn && isListed(name) && isConsolePage(name) === inConsole;
  const links = PAGE_NAMES.filter((name) => listed(name) && (inConsole || mayUse(name, org))).map((name) => link(name));
  if (operator) links.push(inConsole ? link("overview", "Dashboard") : link("admin", "Operator console"));
  // The switcher's place: filled by the script (GET /orgs), on the first line beside the brand.
  const switcher = inConsole ? "" : '<div id="account-switcher" class="account-switcher"></div>';
  return `${switcher}<nav aria-label="${inConsole ? "Operator console" : "Dashboard"}"><ul>${links.join("")}</ul></nav>
      <button type="button" id="sign-out" class="button secondary">Sign out</button>`;
};

/** The organization acted for, on the page's body, for the script. */
const orgAttributes = (org: ActingFor | null | undefined): string => (org
  ? ` data-org-id="${escapeHtml(org.id)}" data-org-name="${escapeHtml(org.name)}" data-org-role="${org.role}" data-person-id="${escapeHtml(org.personId)}"`
  : "");

/**
 * The HTML every dashboard page starts as: header, navigation and the page's heading. The
 * script fills `#page` from the JSON endpoints; `data` (static facts such as the credit packs)
 * travels in a JSON block the script reads, never as markup.
 */
export function renderShell(input: {
  page: PageName; basePath: string; assets: ShellAssets; data?: unknown; operator?: boolean; org?: ActingFor | null;
}): string {
  const { page, basePath, assets } = input;
  const org = input.org ?? null;
  const spec = PAGES[page];
  const home = spec.signedIn ? pageHref(basePath, "overview", isConsolePage(page) ? null : org) : basePath + PAGES.signin.path;
  const dataBlock = input.data === undefined ? "" : `\n  <script type="application/json" id="page-data">${jsonIsland(input.data)}</script>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(spec.title)} · Gateway</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${escapeHtml(assets.stylePath)}">
  <script type="module" src="${escapeHtml(assets.scriptPath)}"></script>${dataBlock}
</head>
<body data-page="${page}" data-base-path="${escapeHtml(basePath)}"${orgAttributes(org)}>
  <a class="skip-link" href="#main">Skip to content</a>
  <header class="site-header">
    <div class="header-inner">
      <a class="brand" href="${escapeHtml(home)}">Gateway</a>
      ${spec.signedIn ? navigation(basePath, page, input.operator === true, org) : ""}
    </div>
  </header>
  <main id="main" tabindex="-1">
    <h1 id="main-heading">${escapeHtml(spec.title)}</h1>
    <div id="page" aria-busy="true"><p class="muted">Loading…</p></div>
    <noscript><p class="notice error">The dashboard needs JavaScript. Turn it on for this site and reload the page.</p></noscript>
  </main>
</body>
</html>
`;
}

/**
 * The page for a dashboard address that names no page (a mistyped or outdated link): the
 * dashboard's own look and a way on, rather than the API's JSON error. No script: it needs none.
 */
export function renderNotFound(input: { basePath: string; assets: Pick<ShellAssets, "stylePath"> }): string {
  const link = (page: PageName, text: string) => `<a href="${escapeHtml(input.basePath + PAGES[page].path)}">${text}</a>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Page not found · Gateway</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${escapeHtml(input.assets.stylePath)}">
</head>
<body data-page="not-found">
  <header class="site-header"><div class="header-inner"><a class="brand" href="${escapeHtml(input.basePath + PAGES.overview.path)}">Gateway</a></div></header>
  <main id="main">
    <h1>Page not found</h1>
    <section class="card">
      <p>There is no dashboard page at this address. The link may be mistyped or out of date.</p>
      <p>Go to the ${link("overview", "overview")}, your ${link("keys", "API keys")} or ${link("usage", "usage")}, or ${link("signin", "sign in")}.</p>
    </section>
  </main>
</body>
</html>
`;
}
