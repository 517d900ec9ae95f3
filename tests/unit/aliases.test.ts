import { expect, test } from "bun:test";
import { checkAlias } from "../../src/core/aliases.ts";
import { FALLBACK_CATALOG } from "../../src/core/catalog.ts";

test.each([
  ["fast", ["gpt-4.1-nano", "llama-4-scout", "gpt-4.1-nano"], { alias: { name: "fast", models: ["gpt-4.1-nano", "llama-4-scout"] } }],
  ["claude-sonnet-4-5", ["deepseek-v4-pro"], { alias: { name: "claude-sonnet-4-5", models: ["deepseek-v4-pro"] } }],
  ["gpt-4.1", ["llama-4-scout"], { reason: "`gpt-4.1` is a model's ID: an alias needs a name of its own" }],
  ["Fast", ["llama-4-scout"], { reason: "An alias is lowercase letters, digits, dots and dashes (at most 128), starting with a letter or digit" }],
  ["-fast", ["llama-4-scout"], { reason: "An alias is lowercase letters, digits, dots and dashes (at most 128), starting with a letter or digit" }],
  ["a,b", ["llama-4-scout"], { reason: "An alias is lowercase letters, digits, dots and dashes (at most 128), starting with a letter or digit" }],
  ["fast", [], { reason: "An alias stands for 1 to 5 models" }],
  ["fast", ["gpt-5", "gpt-5.4", "gpt-5.5", "gpt-4o", "gpt-4.1", "o4-mini"], { reason: "An alias stands for 1 to 5 models" }],
  ["fast", ["gpt-5", "nope"], { reason: "`nope` is not a catalog model" }],
])("alias %s for %j", (name, models, expected) => {
  expect(checkAlias(name, models, FALLBACK_CATALOG)).toEqual(expected as never);
});
