import { dataTable } from "../chart.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { count, usd } from "../format.ts";
import type { CatalogModel } from "../wire.ts";

const perMillion = (amount: string | undefined) => (amount === undefined ? "—" : usd(amount));

/**
 * The models a key may call, with their sell prices per million tokens, context size and what
 * each is good for. The cached-input column appears once the catalog carries such a price.
 */
export async function renderModels(root: HTMLElement, data: { models: CatalogModel[] }): Promise<void> {
  const { models } = data;
  const cached = models.some((m) => m.cachedInputPerMillionUsd !== undefined);
  const columns = ["Model ID", "Name", "Provider", "Input / 1M", ...(cached ? ["Cached input / 1M"] : []), "Output / 1M", "Context", "Max output", "Good for"];
  const numericFrom = 3;
  root.replaceChildren(
    h("p", {}, `${count(models.length)} models, priced in USD per million tokens. Pass the model ID as `, h("code", {}, "model"),
      " in a chat request; the ", h("a", { href: pageUrl("estimator") }, "estimator"), " suggests one for a use case."),
    models.length === 0
      ? h("p", { class: "notice info" }, "No model is available right now.")
      : dataTable({
        caption: "Available models and their prices",
        columns,
        numeric: Array.from({ length: columns.length - numericFrom - 1 }, (_, i) => numericFrom + i),
        rows: models.map((m) => [
          m.id, m.displayName, m.provider, perMillion(m.inputPerMillionUsd),
          ...(cached ? [perMillion(m.cachedInputPerMillionUsd)] : []),
          perMillion(m.outputPerMillionUsd), count(m.contextWindow), count(m.maxOutputTokens), `${m.useCaseHint} (${m.speedBadge})`,
        ]),
      }),
  );
}
