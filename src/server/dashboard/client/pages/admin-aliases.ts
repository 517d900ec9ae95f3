import { call } from "../api.ts";
import { dataTable } from "../chart.ts";
import { h, hidden } from "../dom.ts";
import { field, form } from "../fields.ts";
import { confirmAction } from "../modal.ts";
import type { CatalogList } from "../wire.ts";

type Alias = CatalogList["aliases"][number];

// The alias rules the server checks too (core/aliases.ts): checked here first, to say so beside the field.
const NAME = /^[a-z0-9][a-z0-9.-]{0,127}$/;

/**
 * The operator's aliases: one name for models tried in order, for clients that name only one
 * (Claude Code, Codex). Listed with a Remove button each, and a form that makes or changes one.
 */
export function aliasesSection(aliases: Alias[], modelIds: string[], redraw: (message: string, focusId: string) => Promise<void>): HTMLElement {
  const remove = (a: Alias) => h("button", {
    type: "button", id: `unalias-${a.name}`, class: "button danger",
    onClick: async () => {
      if (!(await confirmAction({ title: `Remove ${a.name}?`, body: "Requests naming this alias are refused once every instance has reloaded its catalog.", confirmLabel: "Remove alias" }))) return;
      await call("DELETE", `/admin/aliases/${encodeURIComponent(a.name)}`);
      await redraw(`${a.name} is removed.`, "alias-name");
    },
  }, "Remove", hidden(` ${a.name}`));
  const name = field({ name: "name", label: "Alias", value: "", hint: "Lowercase letters, digits, dots and dashes.", validate: (v) => (NAME.test(v) && !modelIds.includes(v) ? null : "Alias must be a new name of lowercase letters, digits, dots and dashes") });
  const models = field({ name: "models", label: "Models", value: "", hint: "1 to 5 model IDs, comma-separated, in the order to try.", validate: (v) => (v.split(",").every((id) => modelIds.includes(id.trim())) ? null : "Models must be catalog model IDs, comma-separated") });
  return h("section", { "aria-labelledby": "aliases-title" },
    h("h2", { id: "aliases-title" }, "Aliases"),
    aliases.length === 0 ? h("p", {}, "No aliases yet.") : dataTable({
      caption: "Model aliases, each tried in order until one answers",
      columns: ["Alias", "Models, in order", "Actions"],
      rows: aliases.map((a) => [a.name, a.models.join(", "), remove(a)]),
    }),
    form({
      fields: [name, models],
      submitLabel: "Save alias",
      onSubmit: async () => {
        const saved = await call<Alias>("PUT", `/admin/aliases/${encodeURIComponent(name.value())}`, { models: models.value().split(",").map((id) => id.trim()) });
        await redraw(`${saved.name} now stands for ${saved.models.join(", ")}.`, `unalias-${saved.name}`);
      },
    }),
  );
}
