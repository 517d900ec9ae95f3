import { Database as SqliteClient } from "bun:sqlite";
import { SQL } from "bun";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Dialect } from "./migration-files.ts";
import { driveAsync, driveSync, type Query, type Row, type Work } from "./sql.ts";

export interface Database {
  readonly dialect: Dialect;
  /** Runs the statements of `work` one by one, each committed on its own. */
  run<T>(work: Work<T>): Promise<T>;
  /** Runs the statements of `work` in one transaction: all of them take effect, or none. */
  transaction<T>(work: Work<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Postgres connections in the pool. */
  poolSize?: number;
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (url.startsWith("sqlite:")) return openSqlite(url.slice("sqlite:".length));
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return openPostgres(url, options);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${url.split(":")[0]}:")`);
}

function openSqlite(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const client = new SqliteClient(path, { create: true, safeIntegers: true, strict: true });
  // WAL lets the CLI and readers work beside a running server; the busy timeout makes a
  // second process wait for the write lock instead of failing.
  client.exec("PRAGMA journal_mode = WAL");
  client.exec("PRAGMA busy_timeout = 5000");
  client.exec("PRAGMA synchronous = NORMAL");
  // `query` caches the prepared statement per SQL text, so hot statements are compiled once.
  const answer = (q: Query): Row[] => client.query(q.text).all(...(q.params as never[])) as Row[];
  return {
    dialect: "sqlite",
    run: (work) => settle(() => driveSync(work, answer)),
    // IMMEDIATE takes the write lock at BEGIN, so two processes cannot both read a balance
    // and then both spend it.
    transaction: (work) => settle(() => client.transaction(() => driveSync(work, answer)).immediate()),
    close: async () => client.close(),
  };
}

const settle = <T>(fn: () => T): Promise<T> => {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
};

function openPostgres(url: string, options: DatabaseOptions): Database {
  const client = new SQL(url, { max: options.poolSize ?? 10, bigint: true, connectionTimeout: 5, idleTimeout: 30 });
  const numbered = new Map<string, string>();
  const toPg = (text: string): string => {
    let cached = numbered.get(text);
    if (cached === undefined) {
      let n = 0;
      cached = text.replace(/\?/g, () => `$${++n}`);
      numbered.set(text, cached);
    }
    return cached;
  };
  const answerWith = (conn: SQL) => (q: Query) => conn.unsafe(toPg(q.text), q.params as unknown[]) as Promise<Row[]>;
  return {
    dialect: "postgres",
    run: (work) => driveAsync(work, answerWith(client)),
    transaction: (work) => client.begin((tx) => driveAsync(work, answerWith(tx))) as Promise<never>,
    close: () => client.close(),
  };
}
