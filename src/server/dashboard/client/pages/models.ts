import { dataTable } from "../chart.ts";
import { h } from "../dom.ts";
import { pageUrl } from "../env.ts";
import { count, money } from "../format.ts";
import type { CatalogModel } from "../wire.ts";

/**
 * The models a key may call, with their sell prices per million tokens (a prompt token the
 * provider read from its cache at the cached-input price), context size and what each is good for.
 */
export async function renderModels(root: HTMLElement, data: { models: CatalogModel[] }): Promise<void> {
  const { models } = data;
  const columns = ["Model ID", "Name", "Provider", "Input / 1M", "Cached input / 1M", "Output / 1M", "Context", "Max output", "Good for"];
  const numericFrom = 3;
  const [input, cached, output] = (["inputPerMillionUsd", "cachedInputPerMillionUsd", "outputPerMillionUsd"] as const)
    .map((name) => models.map((m) => money(m[name])));
  root.replaceChildren(
    h("p", {}, `${count(models.length)} models, priced in USD per million tokens. Pass the model ID as `, h("code", {}, "model"),
      " in a chat request; the ", h("a", { href: pageUrl("estimator") }, "estimator"), " suggests one for a use case."),
    models.length === 0
      ? h("p", { class: "notice info" }, "No model is available right now.")
      : dataTable({
        caption: "Available models and their prices",
        columns,
        numeric: Array.from({ length: columns.length - numericFrom - 1 }, (_, i) => numericFrom + i),
        rows: models.map((m, i) => [
          m.id, m.displayName, m.provider, input![i]!, cached![i]!, output![i]!, count(m.contextWindow), count(m.maxOutputTokens), `${m.useCaseHint} (${m.speedBadge})`,
        ]),
      }),
  );
}
