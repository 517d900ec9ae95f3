// What keeps the secrets at rest secret: a SQLite database's files readable by their owner only
// (they hold accounts, sessions, and TOTP and webhook secrets encrypted under the key beside
// them), and a deployment key, without which a Postgres deployment stores no TOTP or webhook
// secret and seals no reasoning. Warnings, not failures: the gateway serves either way.
import { existsSync, statSync } from "node:fs";
import type { Config } from "../../config.ts";
import { keyFileOf } from "../../server/secret-key.ts";
import type { Check } from "./check.ts";

const sqlitePathOf = (databaseUrl: string): string | null => {
  const path = databaseUrl.startsWith("sqlite:") ? databaseUrl.slice("sqlite:".length) : null;
  return path === "" || path === ":memory:" ? null : path;
};

/** The deployment's key: set, kept in its file beside a SQLite database, or missing on Postgres. */
export function checkSecretKey(config: Pick<Config, "secretKey" | "databaseUrl">): Check {
  const name = "secret key";
  if (config.secretKey) return { name, status: "ok", message: "SECRET_KEY (or SECRET_KEY_FILE) is set: back it up apart from the database" };
  const sqlitePath = sqlitePathOf(config.databaseUrl);
  if (sqlitePath !== null) {
    const file = keyFileOf(sqlitePath);
    return existsSync(file)
      ? { name, status: "ok", message: `the key file ${file}: back it up apart from the database` }
      : { name, status: "ok", message: `the key file ${file} is made on first start: back it up apart from the database` };
  }
  if (!config.databaseUrl.startsWith("sqlite:")) {
    return {
      name,
      status: "warn",
      message: "SECRET_KEY is not set: TOTP and webhook secrets cannot be stored and reasoning is not sealed; set SECRET_KEY (`openssl rand -hex 32`) on every instance",
    };
  }
  return { name, status: "ok", message: "an in-memory database: a new key each start" };
}

/** A SQLite database's files (and its key file) that users other than their owner can read. */
export function checkFileModes(databaseUrl: string): Check[] {
  const path = sqlitePathOf(databaseUrl);
  if (path === null) return [];
  const readable = [path, `${path}-wal`, `${path}-shm`, keyFileOf(path)]
    .filter(existsSync)
    .map((file) => ({ file, mode: statSync(file).mode & 0o777 }))
    .filter(({ mode }) => (mode & 0o077) !== 0);
  if (readable.length === 0) return [{ name: "file modes", status: "ok", message: "the database's files are readable by their owner only" }];
  const listed = readable.map(({ file, mode }) => `${file} (${mode.toString(8).padStart(4, "0")})`).join(", ");
  return [{ name: "file modes", status: "warn", message: `readable by other users: ${listed}; \`chmod 600\` them` }];
}
