// No import cycles in src/: a circle makes a layer depend on itself through another, and
// module start-up order fragile. Type-only imports count too: they couple as much.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Each file's relative imports, as absolute paths. */
function importGraph(files: string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1]!))]));
}

/** The cycles of a graph, each as the path that closes it (depth-first, one per back edge). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

test("the cycle finder finds a circle and passes a tree", () => {
  expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]]]))).toEqual([["a", "b", "c", "a"]]);
  expect(cycles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
});

test("src/ has no import cycles", () => {
  const found = cycles(importGraph(sourceFiles(SRC))).map((cycle) => cycle.map((f) => relative(SRC, f)).join(" → "));
  expect(found).toEqual([]);
});
