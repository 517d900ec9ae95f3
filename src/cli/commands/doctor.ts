import type { Command } from "commander";
import { ConfigError, loadConfig, type Config } from "../../config.ts";
import { PROVIDERS } from "../../core/catalog.ts";
import { type Check } from "../doctor/check.ts";
import { checkDatabase } from "../doctor/database.ts";
import { checkExposure } from "../doctor/exposure.ts";
import { checkProvider } from "../doctor/providers.ts";
import { checkFileModes, checkSecretKey } from "../doctor/secrets.ts";
import { checkSmtp } from "../doctor/smtp.ts";
import { checkStripe } from "../doctor/stripe.ts";
import Table from "cli-table3";
import { CliError, printJson, type Output } from "../output.ts";

/** Every check, in the order they are shown; network checks run side by side. */
async function diagnose(offline: boolean): Promise<Check[]> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [{ name: "configuration", status: "fail", message: `${error.message}; nothing else was checked` }];
  }
  const configured = PROVIDERS.filter((p) => config.providers[p].apiKeys.length > 0).length;
  const configuration: Check = {
    name: "configuration",
    status: "ok",
    message: `environment read: ${config.databaseUrl.split(":")[0]} database, ${configured} of ${PROVIDERS.length} provider keys, listening on ${config.host}:${config.port}`,
  };
  const database = await checkDatabase(config.databaseUrl, config.databasePreparedStatements);
  const [providers, stripe, smtp] = await Promise.all([
    Promise.all(PROVIDERS.map((p) => checkProvider(p, config.providers[p], database.enabledModels, offline))),
    checkStripe(config.stripe, offline),
    checkSmtp(config, offline),
  ]);
  const secrets = [checkSecretKey(config), ...checkFileModes(config.databaseUrl)];
  return [configuration, ...database.checks, ...secrets, ...providers, ...stripe, ...smtp, ...checkExposure(config)];
}

const STATUS_LABEL: Record<Check["status"], string> = { ok: "ok", warn: "WARN", fail: "FAIL", skip: "skip" };

/** The checks as a table whose details wrap to the terminal's width. */
function printTable(checks: Check[]): void {
  const nameWidth = Math.max(...checks.map((c) => c.name.length)) + 2;
  const detailsWidth = Math.max(40, (process.stdout.columns ?? 120) - nameWidth - 12);
  const table = new Table({
    head: ["check", "status", "details"],
    colWidths: [nameWidth, 8, detailsWidth],
    wordWrap: true,
    style: { head: [], border: [], compact: true },
  });
  for (const c of checks) table.push([c.name, STATUS_LABEL[c.status], c.message]);
  console.log(table.toString());
}

export function registerDoctor(program: Command, output: () => Output): void {
  program
    .command("doctor")
    .description("check the configuration, database, migrations, providers, Stripe and SMTP; exit 1 when something required is broken")
    .option("--offline", "do not contact providers, Stripe or the SMTP server")
    .action(async (opts: { offline?: boolean }) => {
      const checks = await diagnose(opts.offline === true);
      const failed = checks.filter((c) => c.status === "fail");
      const out = output();
      if (out.json) printJson({ ok: failed.length === 0, checks });
      else {
        printTable(checks);
        const warnings = checks.filter((c) => c.status === "warn").length;
        if (failed.length === 0) console.log(`Everything required works${warnings > 0 ? ` (${warnings} warnings above)` : ""}.`);
      }
      if (failed.length > 0) {
        throw new CliError(`${failed.length} required ${failed.length === 1 ? "check" : "checks"} failed: ${failed.map((c) => c.name).join(", ")}`);
      }
    });
}
