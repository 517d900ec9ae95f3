// The deployment's secret key: what seals reasoning (core/reasoning-seal.ts). Every instance of a
// deployment must use the same one, so it comes from the configuration (`SECRET_KEY` or
// `SECRET_KEY_FILE`). A SQLite deployment is one process on one machine: without a configured
// key it keeps one in a file beside its database, made on first start, readable by its owner
// only. A Postgres deployment without one seals nothing (logged at start), since instances
// could not agree on a key made by one of them.
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { parseSecretKey, type Config } from "../config.ts";
import { cryptoRandom } from "../core/crypto.ts";
import { NO_SEAL, reasoningSeal, type ReasoningSeal } from "../core/reasoning-seal.ts";

const KEY_BYTES = 32;

/** The file a SQLite database's key is kept in, when the configuration names none. */
export const keyFileOf = (databasePath: string): string => `${databasePath}.key`;

/** The key in `file`, made there first (exclusively, 0600) when it does not exist. */
function keptKey(file: string): Uint8Array {
  try {
    const fd = openSync(file, "wx", 0o600);
    const key = cryptoRandom(KEY_BYTES);
    try {
      writeSync(fd, `${Buffer.from(key).toString("hex")}\n`);
    } finally {
      closeSync(fd);
    }
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseSecretKey(readFileSync(file, "utf8"), `the key file ${file}`);
}

/** The deployment's key: configured, else a SQLite database's own (a new one for an in-memory database), else none. */
export function deploymentKey(config: Pick<Config, "secretKey" | "databaseUrl">): Uint8Array | null {
  if (config.secretKey) return config.secretKey;
  if (!config.databaseUrl.startsWith("sqlite:")) return null;
  const path = config.databaseUrl.slice("sqlite:".length);
  if (path === "" || path === ":memory:") return cryptoRandom(KEY_BYTES);
  return keptKey(keyFileOf(path));
}

/** How reasoning is sealed with `key` (or not at all without one). */
export const sealWith = (key: Uint8Array | null): ReasoningSeal => (key ? reasoningSeal(key) : NO_SEAL);
