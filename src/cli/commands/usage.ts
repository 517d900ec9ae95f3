import type { Command } from "commander";
import { usageCsv } from "../../core/usage/export.ts";
import { withStore } from "../context.ts";
import { printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";

export function registerUsage(program: Command, output: () => Output): void {
  program
    .command("usage")
    .description("usage logs")
    .command("export")
    .description("an account's latest 1,000 usage logs as CSV, the same as GET /usage/export")
    .requiredOption("--email <email>", "the account's e-mail")
    .option("--out <file>", "write the CSV to this file instead of stdout")
    .action(async (opts: { email: string; out?: string }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        if (opts.out === undefined) {
          for await (const chunk of usageCsv(store, account.id)) process.stdout.write(chunk);
          return;
        }
        const file = Bun.file(opts.out).writer();
        for await (const chunk of usageCsv(store, account.id)) file.write(chunk);
        await file.end();
        printResult(output(), { email: account.email, out: opts.out }, `wrote the usage of ${account.email} to ${opts.out}`);
      }),
    );
}
