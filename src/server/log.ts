export type Fields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
}

const describe = (value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

/** One JSON object per line on stderr. */
export function jsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (level: string) => (message: string, fields: Fields = {}) => {
    const entries = Object.entries(fields).map(([k, v]) => [k, describe(v)]);
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...Object.fromEntries(entries) })}\n`);
  };
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
