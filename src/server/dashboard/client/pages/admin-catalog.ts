import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h, hidden } from "../dom.ts";
import { field, form } from "../fields.ts";
import { count, money, usd } from "../format.ts";
import { confirmAction, openModal } from "../modal.ts";
import type { CatalogList, CatalogModel } from "../wire.ts";
import { aliasesSection } from "./admin-aliases.ts";
import { consolePage } from "./console.ts";

// What the catalog cache promises: every instance serves an edit within 10 seconds.
const TAKES_EFFECT = "Every instance charges and serves it within 10 seconds.";
const PRICE = /^\d+(\.\d{1,4})?$/;

const priceField = (name: string, label: string, value: string) => field({
  name, label, value: value.replace(/\.?0+$/, ""), inputMode: "decimal", hint: "USD per million tokens, up to 4 decimal places.",
  validate: (v) => (PRICE.test(v) && Number(v) <= 10_000 ? null : `${label} must be a price from 0 to 10,000, such as 2.50`),
});

/** The edit dialog for a model's sell prices; resolves once saved or cancelled. */
async function editPrices(model: CatalogModel, saved: (message: string) => void): Promise<void> {
  const input = priceField("inputPerMillionUsd", "Input price", model.inputPerMillionUsd);
  const cached = priceField("cachedInputPerMillionUsd", "Cached input price", model.cachedInputPerMillionUsd);
  const output = priceField("outputPerMillionUsd", "Output price", model.outputPerMillionUsd);
  await openModal(`Prices of ${model.id}`, (close, titleId) => [
    form({
      fields: [input, cached, output],
      submitLabel: "Save prices",
      labelledBy: titleId,
      actions: [h("button", { type: "button", class: "button secondary", onClick: () => close("cancel") }, "Cancel")],
      onSubmit: async () => {
        // Prices go as the typed decimal strings, read exactly by the server.
        const updated = await call<CatalogModel>("PATCH", `/admin/models/${encodeURIComponent(model.id)}`, {
          inputPerMillionUsd: input.value(), cachedInputPerMillionUsd: cached.value(), outputPerMillionUsd: output.value(),
        });
        saved(`${updated.id} now sells at ${usd(updated.inputPerMillionUsd)} in (${usd(updated.cachedInputPerMillionUsd)} cached) and ${usd(updated.outputPerMillionUsd)} out per million tokens. ${TAKES_EFFECT}`);
        close("saved");
      },
    }),
  ]);
}

/** Every catalog model, enabled or not: enable, disable and reprice, each change audited; and the aliases. */
async function renderCatalog(root: HTMLElement, notice?: string): Promise<void> {
  const { models, aliases } = await call<CatalogList>("GET", "/admin/models");
  const redraw = async (message: string, focusId: string) => {
    await renderCatalog(root, message);
    document.getElementById(focusId)?.focus();
  };
  const toggle = (m: CatalogModel) => h("button", {
    type: "button", id: `toggle-${m.id}`, class: m.enabled ? "button danger" : "button secondary",
    onClick: async () => {
      // Disabling refuses every new request for the model at once: asked first. Enabling is not.
      if (m.enabled && !(await confirmAction({
        title: `Disable ${m.id}?`,
        body: "New requests for this model are refused until it is enabled again.",
        confirmLabel: "Disable model",
      }))) return;
      const updated = await call<CatalogModel>("PATCH", `/admin/models/${encodeURIComponent(m.id)}`, { enabled: !m.enabled });
      await redraw(`${updated.id} is ${updated.enabled ? "enabled" : "disabled"}. ${TAKES_EFFECT}`, `toggle-${m.id}`);
    },
  }, m.enabled ? "Disable" : "Enable", hidden(` ${m.id}`));
  const edit = (m: CatalogModel) => h("button", {
    type: "button", id: `prices-${m.id}`, class: "button secondary",
    onClick: () => void editPrices(m, (message) => void redraw(message, `prices-${m.id}`)),
  }, "Edit prices", hidden(` of ${m.id}`));
  const [input, cached, output] = (["inputPerMillionUsd", "cachedInputPerMillionUsd", "outputPerMillionUsd"] as const)
    .map((name) => models.map((m) => money(m[name])));
  root.replaceChildren(
    h("div", { class: "form-status", "aria-live": "polite" }, notice ? h("p", { class: "notice success", role: "status" }, notice) : null),
    dataTable({
      caption: "The model catalog, in catalog order",
      columns: ["Model ID", "Provider", "Status", "Input / 1M", "Cached input / 1M", "Output / 1M", "Context", "Actions"],
      numeric: [3, 4, 5, 6],
      rows: models.map((m, i) => [
        m.id, m.provider, h("span", { class: `badge ${m.enabled ? "success" : "expired"}` }, m.enabled ? "Enabled" : "Disabled"),
        input![i]!, cached![i]!, output![i]!, count(m.contextWindow),
        h("span", { class: "row-actions" }, toggle(m), edit(m)),
      ]),
    }),
    aliasesSection(aliases, models.map((m) => m.id), redraw),
  );
}

export const renderAdminCatalog = consolePage((root) => renderCatalog(root));
