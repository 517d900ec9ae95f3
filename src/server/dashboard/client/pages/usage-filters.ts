import { call } from "../api.ts";
import { h, uniqueId } from "../dom.ts";
import { basePath, pageUrl } from "../env.ts";
import type { KeyList } from "../wire.ts";

/** The filters the usage table takes from its address (`?key=&model=&status=&from=&to=`), by their API names. */
export const FILTERS = ["key", "model", "status", "from", "to"] as const;

/** The filters in the page's address that are set. */
export function currentFilters(): Record<string, string> {
  const query = new URLSearchParams(location.search);
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""]).filter(([, value]) => value !== ""));
}

const labelled = (label: string, control: HTMLElement & { id: string }) =>
  h("div", { class: "field" }, h("label", { for: control.id }, label), control);

function select(name: string, current: string, options: [string, string][]): HTMLSelectElement {
  return h("select", { id: uniqueId(`filter-${name}`), name },
    [["", "Any"] as [string, string], ...options].map(([value, text]) => h("option", { value, selected: value === current }, text)));
}

/**
 * The filter form: an ordinary GET form to this page, so the filters live in the address (a
 * bookmark or a reload keeps them) and work without any script state.
 */
export async function filterForm(): Promise<HTMLFormElement> {
  const current = currentFilters();
  const [{ keys }, models] = await Promise.all([
    call<KeyList>("GET", "/keys/generate"),
    fetch(`${basePath}/models`).then((r) => r.json() as Promise<{ model_id: string }[]>).catch(() => []),
  ]);
  const modelIds = models.map((m) => m.model_id);
  // A model filtered on but since disabled still shows as chosen.
  if (current.model && !modelIds.includes(current.model)) modelIds.push(current.model);
  const date = (name: "from" | "to") => h("input", { id: uniqueId(`filter-${name}`), name, type: "date", value: current[name] ?? "" });
  const anyFilter = Object.keys(current).length > 0;
  return h("form", { class: "card filters", method: "get", action: pageUrl("usage"), "aria-label": "Filter requests" },
    h("div", { class: "fields" },
      labelled("Key", select("key", current.key ?? "", keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]))),
      labelled("Model", select("model", current.model ?? "", modelIds.map((id) => [id, id]))),
      labelled("Status", select("status", current.status ?? "", [["success", "Success"], ["error", "Error"]])),
      labelled("From (UTC day)", date("from")),
      labelled("To (UTC day)", date("to")),
    ),
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "button" }, "Apply filters"),
      anyFilter ? h("a", { href: pageUrl("usage"), class: "button secondary" }, "Clear filters") : null,
    ),
  );
}
