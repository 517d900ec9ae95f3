import { writeSync } from "node:fs";
import type { LogLevel } from "../config.ts";
import { redactConfigured, secretsInOrder } from "../core/redaction.ts";

export type Fields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
}

const describe = (value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

const SEVERITY: Record<LogLevel, number> = { info: 0, warn: 1, error: 2 };

interface LoggerOptions {
  /** Lines below this level are dropped (LOG_LEVEL). */
  level?: LogLevel;
  /** One readable line per entry for a person at a terminal, instead of JSON for a collector. */
  pretty?: boolean;
  write?: (line: string) => void;
  /**
   * The configured provider keys: taken out of every line, whatever wrote it (an error's
   * message or stack may quote a provider's words), so that no log carries one.
   */
  secrets?: readonly string[];
}

let pendingLines = "";

const flushLines = () => {
  const lines = pendingLines;
  pendingLines = "";
  process.stderr.write(lines);
};

// How long a line may wait for others to share its write.
const LINES_WAIT_MS = 20;

/**
 * Writes to stderr the lines of up to 20 ms together: that is one system call for many requests
 * instead of one each, under load and for a client whose requests come one after another,
 * where a write per request (it wakes the log's reader) was the largest cost of the request log
 * and delayed the next request. Lines still pending when the process exits are written
 * synchronously then.
 */
function writeStderr(line: string): void {
  if (pendingLines === "") setTimeout(flushLines, LINES_WAIT_MS).unref();
  pendingLines += line;
}
process.once("exit", () => {
  if (pendingLines !== "") writeSync(2, pendingLines);
});

/** Writes each entry as one JSON object per line on stderr, or as readable text when `pretty`. */
export function createLogger({ level = "info", pretty = false, write = writeStderr, secrets = [] }: LoggerOptions = {}): Logger {
  const ordered = secretsInOrder(secrets);
  const plainFormat = pretty ? prettyLine : jsonLine;
  const format = ordered.length === 0 ? plainFormat : (...entry: Parameters<typeof plainFormat>) => redactConfigured(plainFormat(...entry), ordered);
  const emit = (entryLevel: LogLevel) => {
    if (SEVERITY[entryLevel] < SEVERITY[level]) return () => {};
    return (message: string, fields: Fields = {}) => write(format(new Date(), entryLevel, message, fields));
  };
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}

function jsonLine(time: Date, level: LogLevel, message: string, fields: Fields): string {
  const entry: Fields = { time: time.toISOString(), level, message };
  for (const key in fields) entry[key] = describe(fields[key]);
  return `${JSON.stringify(entry)}\n`;
}

const LEVEL_STYLE: Record<LogLevel, string> = { info: "\x1b[36mINFO \x1b[0m", warn: "\x1b[33mWARN \x1b[0m", error: "\x1b[31mERROR\x1b[0m" };
const PLAIN_WORD = /^[^\s"=]+$/;

const shown = (value: unknown): string =>
  typeof value === "string"
    ? PLAIN_WORD.test(value) ? value : JSON.stringify(value)
    : (JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value));

/** `12:04:05.123 INFO  request requestId=… status=200`, with an error's stack on the lines below. */
function prettyLine(time: Date, level: LogLevel, message: string, fields: Fields): string {
  let line = `\x1b[2m${time.toISOString().slice(11, 23)}\x1b[0m ${LEVEL_STYLE[level]} ${message}`;
  let stacks = "";
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    line += ` ${key}=${shown(value instanceof Error ? value.message : value)}`;
    if (value instanceof Error && value.stack) stacks += `\n${value.stack}`;
  }
  return `${line}${stacks}\n`;
}

/** A logger that adds `fields` to every entry it writes: a request's ID, say. */
export const withFields = (log: Logger, fields: Fields): Logger => ({
  info: (message, more) => log.info(message, { ...fields, ...more }),
  warn: (message, more) => log.warn(message, { ...fields, ...more }),
  error: (message, more) => log.error(message, { ...fields, ...more }),
});

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
