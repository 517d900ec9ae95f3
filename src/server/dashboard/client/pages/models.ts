import { dataTable } from "../chart.ts";
import { breakable, h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { count, money, plural } from "../format.ts";
import type { CatalogModel } from "../wire.ts";

/** A box that hides the table's rows not holding what is typed (ID, name, provider, use), and says how many do. */
function searchBox(table: HTMLElement, total: number): HTMLElement {
  const said = h("p", { class: "muted", role: "status" });
  const input = h("input", { type: "search", id: "model-search", autocomplete: "off", spellcheck: "false" });
  input.addEventListener("input", () => {
    const query = input.value.trim().toLowerCase();
    let shown = 0;
    for (const row of table.querySelectorAll<HTMLElement>("tbody tr")) {
      row.hidden = !(row.textContent ?? "").toLowerCase().includes(query);
      if (!row.hidden) shown++;
    }
    said.textContent = query === "" ? ""
      : shown === 0 ? `No model matches “${input.value.trim()}”.`
      : `${count(shown)} of ${plural(total, "model")} match “${input.value.trim()}”.`;
  });
  return h("div", { class: "field model-search" }, h("label", { for: input.id }, "Search models"), input, said);
}

/**
 * The models a key may call, with their sell prices per million tokens (a prompt token the
 * provider read from its cache at the cached-input price), context size and what each is good for.
 */
export async function renderModels(root: HTMLElement, data: { models: CatalogModel[] }): Promise<void> {
  const { models } = data;
  const columns = ["Model ID", "Name", "Provider", "Input / 1M", "Cached input / 1M", "Output / 1M", "Context", "Max output", "Good for"];
  const numericFrom = 3;
  const table = dataTable({
    caption: "Available models and their prices",
    columns,
    numeric: Array.from({ length: columns.length - numericFrom - 1 }, (_, i) => numericFrom + i),
    rows: models.map((m) => [
      h("span", { class: "identifier" }, breakable(m.id)), m.displayName, m.provider,
      money(m.inputPerMillionUsd), money(m.cachedInputPerMillionUsd), money(m.outputPerMillionUsd),
      count(m.contextWindow), count(m.maxOutputTokens), `${m.useCaseHint} (${m.speedBadge})`,
    ]),
  });
  root.replaceChildren(
    h("p", {}, `${count(models.length)} models, priced in USD per million tokens. Pass the model ID as `, h("code", {}, "model"),
      " in a chat request; the ", h("a", { href: pageUrl("estimator") }, "estimator"), " suggests one for a use case."),
    ...(models.length === 0 ? [h("p", { class: "notice info" }, "No model is available right now.")] : [searchBox(table, models.length), table]),
  );
}
