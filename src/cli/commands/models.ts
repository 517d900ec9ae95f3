import type { Command } from "commander";
import { checkAlias } from "../../core/aliases.ts";
import type { Model } from "../../core/catalog.ts";
import { parseModelChange } from "../../core/admin/rules.ts";
import { isAppError } from "../../core/errors.ts";
import type { ModelChange } from "../../core/store.ts";
import { cliActor, withStore } from "../context.ts";
import { CLI_AUDIT_ACCOUNT } from "../../core/accounts/audit.ts";
import { describeModelChange } from "../../core/admin/actions.ts";
import { CliError, exactUsd, printRecords, printResult, type Output } from "../output.ts";
import { modelRecord } from "../records.ts";

/** The table `models list` prints, prices exact; --json prints each model as `GET /admin/models` lists it. */
const MODEL_COLUMNS: Record<string, (m: Model) => string | number> = {
  model: (m) => m.id,
  provider: (m) => m.provider,
  category: (m) => m.category,
  context: (m) => m.contextWindow,
  "input $/1M": (m) => exactUsd(m.inputPerMTok),
  "output $/1M": (m) => exactUsd(m.outputPerMTok),
  // The price cached prompt tokens are charged at; the input price unless the operator set one.
  "cached input $/1M": (m) => exactUsd(m.cachedInputPerMTok ?? m.inputPerMTok),
  "max output": (m) => m.maxOutputTokens,
  enabled: (m) => (m.enabled ? "yes" : "no"),
};

const FLAG_OF: Record<string, string> = { inputPerMillionUsd: "--input", outputPerMillionUsd: "--output", cachedInputPerMillionUsd: "--cached-input" };

/**
 * A reprice by the console's rules (`parseModelChange`): prices from 0 to 10,000 USD per 1M
 * tokens, in the catalog's step of 0.0001 (what `GET /models` shows is what is charged). A finer
 * price is refused, naming the step, rather than stored rounded.
 */
function consoleReprice(body: Record<string, string | null | undefined>): ModelChange {
  try {
    return parseModelChange(body);
  } catch (error) {
    if (!isAppError(error)) throw error;
    const [field = "", ...rest] = error.message.split(" ");
    const message = `${FLAG_OF[field] ?? field} ${rest.join(" ")}`;
    const step = /decimal places/.test(message) ? ": catalog prices go in steps of 0.0001 USD per 1M tokens" : "";
    throw new CliError(`${message}${step} (got "${body[field]}")`);
  }
}

export function registerModels(program: Command, output: () => Output): void {
  const models = program.command("models").description("the model catalog: list, enable, disable, price, alias");
  registerAliases(models, output);

  models
    .command("list")
    .description("list every catalog model, enabled or not")
    .action(async () =>
      withStore({}, async ({ store }) => {
        printRecords(output(), await store.listModels({ includeDisabled: true }), modelRecord, MODEL_COLUMNS);
      }),
    );

  const change = async (id: string, patch: ModelChange, verb: string) =>
    withStore({}, async ({ store }) => {
      // Audited in the change's transaction, as the console's edits are; the CLI is no account.
      const model = await store.updateModelAudited(id, patch, (updated) => ({
        accountId: CLI_AUDIT_ACCOUNT, type: "model_updated", ip: null, at: Date.now(), detail: `${updated.id}: ${describeModelChange(patch)} by ${cliActor()}`,
      }));
      if (!model) throw new CliError(`no model "${id}" in the catalog (see: gateway models list)`);
      printResult(output(), modelRecord(model), `${model.id} ${verb}`);
    });

  models.command("enable <id>").description("serve a model again").action((id: string) => change(id, { enabled: true }, "enabled"));
  models.command("disable <id>").description("stop serving a model (chat answers 400)").action((id: string) => change(id, { enabled: false }, "disabled"));
  models
    .command("set-price <id>")
    .description("set the sell prices in USD per million tokens")
    .requiredOption("--input <usd>", "USD per 1M input tokens")
    .requiredOption("--output <usd>", "USD per 1M output tokens")
    .option("--cached-input <usd>", 'USD per 1M cached input tokens ("none": the input price)')
    .action((id: string, opts: { input: string; output: string; cachedInput?: string }) =>
      change(id, consoleReprice({
        inputPerMillionUsd: opts.input,
        outputPerMillionUsd: opts.output,
        cachedInputPerMillionUsd: opts.cachedInput === "none" ? null : opts.cachedInput,
      }), "repriced"),
    );
}

/** Aliases: one name for a list of models tried in order, for clients that can name only one. */
function registerAliases(models: Command, output: () => Output): void {
  models
    .command("aliases")
    .description("list the model aliases")
    .action(async () =>
      withStore({}, async ({ store }) => {
        // --json: the aliases as GET /admin/models lists them.
        printRecords(output(), await store.listAliases(), (a) => a, { alias: (a) => a.name, models: (a) => a.models.join(",") });
      }),
    );
  models
    .command("alias <name>")
    .description("make NAME stand for models tried in order (1 to 5), or change what it stands for")
    .requiredOption("--to <ids>", "catalog model IDs, comma-separated, in the order to try")
    .action((name: string, opts: { to: string }) =>
      withStore({}, async ({ store }) => {
        const checked = checkAlias(name, opts.to.split(",").map((id) => id.trim()), await store.listModels({ includeDisabled: true }));
        if ("reason" in checked) throw new CliError(checked.reason);
        await store.saveAlias(checked.alias, Date.now());
        printResult(output(), checked.alias, `${name} → ${checked.alias.models.join(", ")}`);
      }),
    );
  models
    .command("unalias <name>")
    .description("remove an alias")
    .action((name: string) =>
      withStore({}, async ({ store }) => {
        if (!(await store.removeAlias(name))) throw new CliError(`no alias "${name}" (see: gateway models aliases)`);
        printResult(output(), { name, removed: true }, `${name} removed`);
      }),
    );
}
