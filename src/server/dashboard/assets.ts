// Runs while the server's code is bundled or transpiled, not when it serves: routes.ts imports
// these functions `with { type: "macro" }`, so their results are inlined as string literals.
// `gateway` built by `bun build --compile` thus carries the page's script and styles inside it,
// and no source file, bundler or network is needed to serve them.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The browser script: client/main.ts and what it imports, bundled and minified into one ES module. */
export function clientScript(): string {
  // Bun.build cannot run inside a macro (the bundler would wait on itself); its CLI can.
  const built = Bun.spawnSync(
    [process.execPath, "build", join(import.meta.dir, "client", "main.ts"), "--target=browser", "--format=esm", "--minify"],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (!built.success) throw new Error(`the dashboard's script did not build:\n${built.stderr.toString()}`);
  return built.stdout.toString();
}

/** The page's style sheet: the shared styles, then single pages' own. */
export function styleSheet(): string {
  return ["styles.css", "page-styles.css"].map((name) => readFileSync(join(import.meta.dir, name), "utf8")).join("\n");
}
