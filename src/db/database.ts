import { Database as SqliteClient } from "bun:sqlite";
import { SQL } from "bun";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Dialect } from "./migration-files.ts";
import { startWalCheckpointer } from "./wal-checkpointer.ts";
import { driveAsync, driveSync, type Query, type Row, type Work } from "./sql.ts";

export interface Database {
  readonly dialect: Dialect;
  /** Runs the statements of `work` one by one, each committed on its own. */
  run<T>(work: Work<T>): Promise<T>;
  /** Runs the statements of `work` in one transaction: all of them take effect, or none. */
  transaction<T>(work: Work<T>): Promise<T>;
  close(): Promise<void>;
}

/** Told how long each query (`run`) or transaction took, in seconds, and whether it failed. */
export type DatabaseObserver = (kind: "query" | "transaction", seconds: number, failed: boolean) => void;

interface DatabaseOptions {
  /** Postgres connections in the pool. */
  poolSize?: number;
  /**
   * Postgres: statements are prepared under names and reused per connection (the default). A
   * transaction-pooling pooler hands each transaction another server connection, where a name
   * is unknown or already taken ("prepared statement "P0" already exists"): off, each statement
   * is sent unnamed, parsed each time.
   */
  preparedStatements?: boolean;
  observe?: DatabaseObserver;
  /**
   * SQLite file: WAL checkpoints run on a thread of their own (`wal-checkpointer.ts`), at least
   * every `maxIdleMs` while the WAL holds uncopied pages. For a long-running server; a
   * short-lived CLI command keeps SQLite's automatic checkpoint.
   */
  checkpoints?: { maxIdleMs: number; onFailure(reason: string): void };
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const db = openDialect(url, options);
  return options.observe ? timed(db, options.observe) : db;
}

function openDialect(url: string, options: DatabaseOptions): Database {
  if (url.startsWith("sqlite:")) return openSqlite(url.slice("sqlite:".length), options.checkpoints);
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return openPostgres(url, options);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${url.split(":")[0]}:")`);
}

/**
 * Times each unit of work from the moment it is asked for until its promise settles, so the
 * time includes waiting: for a pooled Postgres connection, for a SQLite group commit, for
 * another process's write lock.
 */
function timed(db: Database, observe: DatabaseObserver): Database {
  // Arguments are evaluated in order: the clock is read before the work starts (SQLite's
  // queries run synchronously inside `db.run`).
  const time = <T>(kind: "query" | "transaction", startedAt: number, work: Promise<T>): Promise<T> =>
    work.then(
      (value) => {
        observe(kind, (performance.now() - startedAt) / 1000, false);
        return value;
      },
      (error: unknown) => {
        observe(kind, (performance.now() - startedAt) / 1000, true);
        throw error;
      },
    );
  return {
    dialect: db.dialect,
    run: (work) => time("query", performance.now(), db.run(work)),
    transaction: (work) => time("transaction", performance.now(), db.transaction(work)),
    close: () => db.close(),
  };
}

/** `open()`, with the file it could not open named in its error ("unable to open database file" names none). */
function naming<T>(path: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (error instanceof Error) error.message = `${error.message}: ${path} (DATABASE_URL)`;
    throw error;
  }
}

function openSqlite(path: string, checkpoints: DatabaseOptions["checkpoints"]): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const client = naming(path, () => new SqliteClient(path, { create: true, safeIntegers: true, strict: true }));
  // WAL lets the CLI and readers work beside a running server; the busy timeout makes a
  // second process wait for the write lock instead of failing. It comes first: turning a new
  // file to WAL takes that lock too, and two processes opening it at once (two instances
  // started together) would otherwise have one fail with "database is locked".
  client.exec("PRAGMA busy_timeout = 5000");
  naming(path, () => client.exec("PRAGMA journal_mode = WAL"));
  // In WAL mode NORMAL syncs the WAL at checkpoints, not at each commit: a commit survives the
  // process crashing (its frames are in the file); a power loss can take back the commits since
  // the last checkpoint, at most one checkpointer interval under `serve` (docs/decisions.md).
  client.exec("PRAGMA synchronous = NORMAL");
  // Group commit runs each transaction in a savepoint, whose undo journal would otherwise be
  // a temporary file written on every first change to a page.
  client.exec("PRAGMA temp_store = MEMORY");
  // Every chat request appends to the ledger and the usage log: a page cache that holds their
  // index pages (8 MB, not 2) re-reads fewer of them.
  client.exec("PRAGMA cache_size = -8000");
  // Deleted and overwritten content is zeroed rather than left in free space: an account
  // e-mail's text, cleared once sent, carries a live verification or reset link.
  client.exec("PRAGMA secure_delete = ON");
  // `query` caches the prepared statement per SQL text, so hot statements are compiled once.
  const answer = (q: Query): Row[] => client.query(q.text).all(...(q.params as never[])) as Row[];
  const batches = groupCommit(client, answer);
  const checkpointer = checkpoints && path !== ":memory:"
    ? startWalCheckpointer(client, path, checkpoints.maxIdleMs, checkpoints.onFailure)
    : undefined;
  return {
    dialect: "sqlite",
    run: (work) => settle(() => driveSync(work, answer)),
    transaction: batches.transaction,
    close: async () => {
      batches.flush();
      await checkpointer?.stop();
      client.close();
    },
  };
}

interface Pending {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * SQLite transactions with group commit. Transactions asked for during one turn of the event
 * loop run one after another inside a single BEGIN IMMEDIATE … COMMIT, each in a savepoint of
 * its own so that one that fails is rolled back alone (while the turns are quiet, the first of
 * a turn runs at once, alone: see `transaction`). They are as isolated as before (they
 * run serially, each sees the previous ones' writes), but the commit, which writes the pages
 * to the WAL and is most of a transaction's cost, is paid once per batch. A transaction's
 * promise settles only after the commit that makes it durable.
 *
 * IMMEDIATE takes the write lock at BEGIN, so two processes cannot both read a balance and
 * then both spend it.
 */
function groupCommit(client: SqliteClient, answer: (q: Query) => Row[]) {
  const statement = (text: string) => client.prepare(text);
  const [begin, commit, rollback] = [statement("BEGIN IMMEDIATE"), statement("COMMIT"), statement("ROLLBACK")];
  const [savepoint, release, rollbackTo] = [statement("SAVEPOINT one"), statement("RELEASE one"), statement("ROLLBACK TO one")];
  let pending: Pending[] = [];
  // A closed database throws for `inTransaction` too: each transaction is told the batch's own error.
  const rollbackIfOpen = () => {
    try {
      if (client.inTransaction) rollback.run();
    } catch {
      // closed: there is nothing to roll back
    }
  };

  const flush = () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const outcomes: (() => void)[] = [];
    const run = (item: Pending) => {
      const value = driveSync(item.work, answer);
      outcomes.push(() => item.resolve(value));
    };
    try {
      begin.run();
      // A transaction alone needs no savepoint (and no statement journal): when it fails, the
      // batch's rollback below undoes it, and it alone is told.
      if (batch.length === 1) run(batch[0] as Pending);
      else {
        for (const item of batch) {
          savepoint.run();
          try {
            run(item);
          } catch (error) {
            rollbackTo.run();
            outcomes.push(() => item.reject(error));
          }
          release.run();
        }
      }
      commit.run();
    } catch (error) {
      // The batch as a whole failed (lock timeout, disk full, …), or its one transaction did:
      // nothing of it was written.
      rollbackIfOpen();
      for (const item of batch) item.reject(error);
      return;
    }
    for (const settleOne of outcomes) settleOne();
  };

  // A batch forms by waiting for the turn's end, which a transaction alone pays for nothing
  // (~13 µs for a lone request's charge). So while the turn before asked for at most one
  // transaction, the first of a turn runs at once; any more in that turn wait as before, and a
  // busy turn makes the next one wait from its first.
  let askedThisTurn = 0;
  let quiet = true;
  const endTurn = () => {
    quiet = askedThisTurn <= 1;
    askedThisTurn = 0;
  };

  const transaction = <T>(work: Work<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (askedThisTurn++ === 0) setImmediate(endTurn);
      if (pending.length > 1) return;
      if (quiet && askedThisTurn === 1) flush();
      else setImmediate(flush);
    });
  return { transaction, flush };
}
const settle = <T>(fn: () => T): Promise<T> => {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
};

const POOLER_SYMPTOM = /prepared statement "[^"]*" (already exists|does not exist)/;

/**
 * With prepared statements on, these errors mean a transaction-pooling pooler between the
 * gateway and the database: the message says what to set, wherever it ends up (CLI, log).
 * A connection that fails says to which server.
 */
const explainFailure = <T>(work: Promise<T>, server: string, preparedStatements: boolean): Promise<T> =>
  work.catch((error: unknown) => {
    if (!(error instanceof Error)) throw error;
    if (preparedStatements && POOLER_SYMPTOM.test(error.message)) {
      error.message += " (a transaction-pooling pooler such as PgBouncer or Supavisor? set DATABASE_PREPARED_STATEMENTS=off)";
    }
    // Bun's "Failed to connect" names no server: the operator is told which (never the password).
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_POSTGRES_CONNECTION") && !error.message.includes(server)) {
      error.message += ` to Postgres at ${server} (DATABASE_URL)`;
    }
    throw error;
  });

/** Where a Postgres URL points, as it may be printed: host, port, database and user, never the password. */
function serverOf(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? ` as ${decodeURIComponent(parsed.username)}` : "";
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}${user}`;
  } catch {
    return "(DATABASE_URL is not a URL)";
  }
}

function openPostgres(url: string, options: DatabaseOptions): Database {
  const client = new SQL(url, {
    max: options.poolSize ?? 10, bigint: true, connectionTimeout: 5, idleTimeout: 30, prepare: options.preparedStatements ?? true,
  });
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
  const server = serverOf(url);
  const explain = <T>(work: Promise<T>) => explainFailure(work, server, options.preparedStatements !== false);
  return {
    dialect: "postgres",
    run: (work) => explain(driveAsync(work, answerWith(client))),
    transaction: (work) => explain(client.begin((tx) => driveAsync(work, answerWith(tx))) as Promise<never>),
    close: () => client.close(),
  };
}
