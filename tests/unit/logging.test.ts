import { expect, test } from "bun:test";
import { ConfigError, loadConfig, type LogLevel } from "../../src/config.ts";
import { createLogger } from "../../src/server/log.ts";

function capture(options: { level?: LogLevel; pretty?: boolean } = {}) {
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
