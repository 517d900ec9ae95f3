import type { Command } from "commander";
import { chmodSync, writeFileSync } from "node:fs";
import { usageCsv, usageJson } from "../../core/usage/export.ts";
import { parseExportRange } from "../../core/usage/range.ts";
import { withStore } from "../context.ts";
import { printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";

export function registerUsage(program: Command, output: () => Output): void {
  program
    .command("usage")
    .description("usage logs")
    .command("export")
    .description("an account's usage logs, newest first: every one in --from..--to (no 1,000-row cap), as CSV (GET /usage/export's columns) or with --json as JSON (GET /account/usage's names)")
    .requiredOption("--email <email>", "the account's e-mail")
    .option("--from <when>", "the first UTC day (2026-03-14) or instant (2026-03-14T09:30:00Z) included")
    .option("--to <when>", "the last UTC day included, or the instant the range ends before")
    .option("--out <file>", "write to this file (readable by its owner only) instead of stdout")
    .action(async (opts: { email: string; from?: string; to?: string; out?: string }) => {
      const range = parseExportRange(opts.from, opts.to);
      const json = output().json;
      await withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        // Every row of the range, read a page at a time: the export is never held whole.
        const chunks = (json ? usageJson : usageCsv)(store, account.id, { filter: range, limit: Number.POSITIVE_INFINITY });
        if (opts.out === undefined) {
          for await (const chunk of chunks) process.stdout.write(chunk);
          return;
        }
        // Made owner-only before a row is written; an existing file is narrowed to that too.
        writeFileSync(opts.out, "", { mode: 0o600 });
        chmodSync(opts.out, 0o600);
        const file = Bun.file(opts.out).writer();
        for await (const chunk of chunks) file.write(chunk);
        await file.end();
        printResult(output(), { email: account.email, out: opts.out }, `wrote the usage of ${account.email} to ${opts.out}`);
      });
    });
}
