import { Command, CommanderError } from "commander";
import { BUILD_INFO, versionLine } from "../build-info.ts";
import { ConfigError } from "../config.ts";
import { registerBackup } from "./commands/backup.ts";
import { registerCredits } from "./commands/credits.ts";
import { registerDoctor } from "./commands/doctor.ts";
import { registerKeys } from "./commands/keys.ts";
import { registerModels } from "./commands/models.ts";
import { registerOrgs } from "./commands/orgs.ts";
import { registerPurchases } from "./commands/purchases.ts";
import { registerServer } from "./commands/server.ts";
import { registerUsage } from "./commands/usage.ts";
import { registerUsers } from "./commands/users.ts";
import { CliError, printResult, type Output } from "./output.ts";

function buildProgram(): Command {
  const program = new Command("gateway")
    .description("Prepaid-credit gateway for chat-completion models: HTTP server and admin CLI")
    .option("--json", "machine-readable JSON output")
    .version(versionLine(), "-V, --version", "the version and the commit this binary was built from")
    .showHelpAfterError()
    .exitOverride();
  const output = (): Output => ({ json: Boolean(program.opts().json) });
  registerServer(program, output);
  program.command("version").description("the version and the commit this binary was built from")
    .action(() => printResult(output(), BUILD_INFO, versionLine()));
  registerUsers(program, output);
  registerCredits(program, output);
  registerKeys(program, output);
  registerUsage(program, output);
  registerPurchases(program, output);
  registerModels(program, output);
  registerDoctor(program, output);
  registerBackup(program, output);
  registerOrgs(program, output);
  // --json is accepted after the subcommand too: `gateway models list --json`.
  for (const command of allCommands(program)) command.option("--json", "machine-readable JSON output");
  program.hook("preAction", (_root, action) => {
    if (action.opts().json) program.setOptionValue("json", true);
  });
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Runs the CLI and returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError || error instanceof ConfigError) {
      console.error(`error: ${error.message}`);
      return error instanceof CliError ? error.exitCode : 2;
    }
    console.error(`error: ${(error as Error).message ?? String(error)}`);
    return 1;
  }
}
