import { expect, test } from "bun:test";
import { ConfigError, loadConfig, type LogLevel } from "../../src/config.ts";
import { createLogger } from "../../src/server/log.ts";

function capture(options: { level?: LogLevel; pretty?: boolean; secrets?: string[] } = {}) {
  const lines: string[] = [];
  const log = createLogger({ ...options, write: (line) => lines.push(line) });
  return { log, lines };
}

const ANSI = /\x1b\[[0-9;]*m/g;

test("writes one JSON object per line with time, level, message and the fields, leaving out undefined ones", () => {
  const { log, lines } = capture();
  log.info("request", { requestId: "r-1", status: 200, model: undefined });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toEndWith("}\n");
  const entry = JSON.parse(lines[0]!);
  expect(entry).toEqual({ time: expect.any(String), level: "info", message: "request", requestId: "r-1", status: 200 });
  expect(new Date(entry.time).toISOString()).toBe(entry.time);
});

test("an Error field is written with its name, message and stack", () => {
  const { log, lines } = capture();
  log.error("unhandled error", { error: new TypeError("boom") });
  expect(JSON.parse(lines[0]!).error).toEqual({ name: "TypeError", message: "boom", stack: expect.stringContaining("boom") });
});

test.each([false, true])("a configured provider key is taken out of every line (pretty: %p), in fields and errors alike", (pretty) => {
  const secrets = ["pk-LOGSECRET-one", "pk-LOGSECRET-one-longer", "second-key"];
  const { log, lines } = capture({ pretty, secrets });
  log.warn("provider stream failed", { error: "Bearer pk-LOGSECRET-one-longer refused" });
  log.error("unhandled error", { error: new Error("key second-key and pk-LOGSECRET-one rejected") });
  const all = lines.join("");
  for (const secret of secrets) expect(all).not.toContain(secret);
  expect(all).toContain("[redacted]");
  expect(all).not.toContain("-longer"); // the longer key taken out whole, not its shorter prefix
});

test.each([
  ["info", ["info", "warn", "error"]],
  ["warn", ["warn", "error"]],
  ["error", ["error"]],
] as const)("LOG_LEVEL=%s writes %p", (level, written) => {
  const { log, lines } = capture({ level });
  log.info("i");
  log.warn("w");
  log.error("e");
  expect(lines.map((line) => JSON.parse(line).level)).toEqual([...written]);
});

test("pretty lines read as time, level, message and key=value pairs, quoting what has spaces", () => {
  const { log, lines } = capture({ pretty: true });
  log.info("request", { requestId: "r-1", route: "/v1/chat/completions", status: 200, note: "two words", skipped: undefined });
  expect(lines[0]!.replace(ANSI, "")).toMatch(
    /^\d\d:\d\d:\d\d\.\d{3} INFO  request requestId=r-1 route=\/v1\/chat\/completions status=200 note="two words"\n$/,
  );
});

test("a pretty error shows its message on the line and its stack below it", () => {
  const { log, lines } = capture({ pretty: true });
  log.error("unhandled error", { error: new Error("it broke") });
  const [first, ...rest] = lines[0]!.replace(ANSI, "").split("\n");
  expect(first).toMatch(/ERROR unhandled error error="it broke"$/);
  expect(rest.join("\n")).toContain("Error: it broke\n    at ");
});

test("LOG_LEVEL is one of info, warn and error, in any case; info by default", () => {
  expect(loadConfig({}).logLevel).toBe("info");
  expect(loadConfig({ LOG_LEVEL: "WARN" }).logLevel).toBe("warn");
  expect(() => loadConfig({ LOG_LEVEL: "verbose" })).toThrow(new ConfigError('LOG_LEVEL must be one of info, warn, error (got "verbose")'));
});
