// Readers come after us: no source file over 300 lines and no function over 80 (SQL text
// included), so that each one can be read at once.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

const SRC = resolve(import.meta.dir, "../../src");
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;
// Generated, not read: the migrations embedded in the binary.
const GENERATED = new Set(["db/migrations.gen.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !GENERATED.has(relative(SRC, path)) ? [path] : [];
  });
}

/** Every function in `text` longer than `max` lines, as "line: length". */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      if (lines > max) found.push(`${first + 1}: ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("the length check finds a long function", () => {
  const body = Array.from({ length: 5 }, (_, i) => `  const a${i} = ${i};`).join("\n");
  expect(longFunctions("x.ts", `function f() {\n${body}\n}\nconst g = () => 1;`, 4)).toEqual(["1: 7 lines"]);
});

test(`no source file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
  const problems = sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    const name = relative(SRC, file);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return [
      ...(lines > MAX_FILE_LINES ? [`${name}: ${lines} lines`] : []),
      ...longFunctions(file, text, MAX_FUNCTION_LINES).map((f) => `${name}:${f}`),
    ];
  });
  expect(problems).toEqual([]);
});
