import { call } from "../api.ts";
import { h, uniqueId } from "../dom.ts";
import { errorSlot } from "../fields.ts";
import { actingFor, basePath, manages, pageUrl } from "../env.ts";
import type { KeyList, MemberView } from "../wire.ts";
import { ORG_PARAM } from "../../page-table.ts";

/** The filters the usage table takes from its address (`?key=&model=&status=&from=&to=`), by their API names. */
export const FILTERS = ["member", "key", "model", "status", "from", "to"] as const;
type FilterName = (typeof FILTERS)[number];

const LABELS: Record<FilterName, string> = {
  member: "Member", key: "Key", model: "Model", status: "Status", from: "From (UTC day)", to: "To (UTC day)",
};

/** An organization's members, for its owners and admins to filter by (`?member={userId}`); none elsewhere. */
const membersToFilter = async (): Promise<MemberView[] | null> => (actingFor !== null && manages()
  ? (await call<{ members: MemberView[] }>("GET", `/orgs/${actingFor.id}/members`)).members
  : null);
/** Days are typed as the API and the table show them, YYYY-MM-DD, whatever the browser's locale. */
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters in the page's address that are set. */
export function currentFilters(): Record<string, string> {
  const query = new URLSearchParams(location.search);
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""]).filter(([, value]) => value !== ""));
}

interface Control {
  element: HTMLElement;
  input: HTMLInputElement | HTMLSelectElement;
  showError(message: string | null): void;
}

/** A labelled control with a message slot tied to it for screen readers. */
function labelled(name: FilterName, input: HTMLInputElement | HTMLSelectElement): Control {
  const error = errorSlot(input.id, input);
  input.setAttribute("aria-describedby", error.element.id);
  return {
    element: h("div", { class: "field" }, h("label", { for: input.id }, LABELS[name]), input, error.element),
    input,
    showError: error.show,
  };
}

function select(name: string, current: string, options: [string, string][]): HTMLSelectElement {
  return h("select", { id: uniqueId(`filter-${name}`), name },
    [["", "Any"] as [string, string], ...options].map(([value, text]) => h("option", { value, selected: value === current }, text)));
}

/** The page's own check of the dates, before anything is sent: a range must not end before it starts. */
function checkDates(controls: Record<FilterName, Control>): boolean {
  const from = controls.from.input.value.trim();
  const to = controls.to.input.value.trim();
  const shape = (name: "from" | "to", value: string) => {
    const bad = value !== "" && !ISO_DAY.test(value);
    controls[name].showError(bad ? `${LABELS[name].replace(/ \(.*\)$/, "")} must be a date such as 2026-03-14` : null);
    return !bad;
  };
  const fromOk = shape("from", from);
  const toOk = shape("to", to);
  const wrong = fromOk && toOk && from !== "" && to !== "" && from > to;
  if (wrong) controls.to.showError(`To must be on or after From (${from})`);
  const first = [controls.from, controls.to].find((c) => c.input.getAttribute("aria-invalid") === "true");
  first?.input.focus();
  return first === undefined;
}

/**
 * The filter form: an ordinary GET form to this page, so the filters live in the address (a
 * bookmark or a reload keeps them) and work without any script state. `refused` is the server's
 * answer to the filters in the address: shown beside the filter it names (with the filter's
 * label in place of its API name), or above the buttons, with a way back to no filters.
 */
export async function filterForm(refused?: string): Promise<HTMLFormElement> {
  const current = currentFilters();
  const [{ keys }, members, models] = await Promise.all([
    call<KeyList>("GET", "/keys/generate"),
    membersToFilter(),
    fetch(`${basePath}/models`).then((r) => r.json() as Promise<{ model_id: string }[]>).catch(() => []),
  ]);
  const modelIds = models.map((m) => m.model_id);
  // A model filtered on but since disabled still shows as chosen.
  if (current.model && !modelIds.includes(current.model)) modelIds.push(current.model);
  // A text field, not type=date, whose picker shows the browser's locale (03/14/2026): the dates read as everywhere else.
  const date = (name: "from" | "to") => h("input", {
    id: uniqueId(`filter-${name}`), name, type: "text", value: current[name] ?? "", placeholder: "YYYY-MM-DD",
    inputmode: "numeric", maxlength: 10, autocomplete: "off",
  });
  const controls: Record<FilterName, Control> = {
    member: labelled("member", select("member", current.member ?? "", (members ?? []).map((m) => [m.userId, m.email]))),
    key: labelled("key", select("key", current.key ?? "", keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]))),
    model: labelled("model", select("model", current.model ?? "", modelIds.map((id) => [id, id]))),
    status: labelled("status", select("status", current.status ?? "", [["success", "Success"], ["error", "Error or refused"], ["refused", "Refused"]])),
    from: labelled("from", date("from")),
    to: labelled("to", date("to")),
  };
  const status = h("div", { class: "form-status", "aria-live": "polite" });
  if (refused !== undefined) {
    const name = FILTERS.find((f) => refused.startsWith(`${f} `));
    // "from must not be after to" reads "From must not be after To": both named as on screen.
    const said = (text: string) => text.replace(/ to$/, " To");
    if (name) controls[name].showError(said(LABELS[name].replace(/ \(.*\)$/, "") + refused.slice(name.length)));
    else status.append(h("p", { class: "notice error", role: "alert" }, refused));
  }
  const anyFilter = Object.keys(current).length > 0;
  const form = h("form", { class: "card filters", method: "get", action: pageUrl("usage"), "aria-label": "Filter requests", novalidate: true },
    // The form's GET keeps the organization acted for in the address.
    actingFor ? h("input", { type: "hidden", name: ORG_PARAM, value: actingFor.id }) : null,
    h("div", { class: "fields" }, FILTERS.filter((name) => name !== "member" || members !== null).map((name) => controls[name].element)),
    status,
    h("div", { class: "actions" },
      h("button", { type: "submit", class: "button" }, "Apply filters"),
      anyFilter || refused !== undefined ? h("a", { href: pageUrl("usage"), class: "button secondary" }, "Clear filters") : null,
    ),
  );
  form.addEventListener("submit", (event) => {
    if (!checkDates(controls)) event.preventDefault();
  });
  return form;
}
