import type { Database as SqliteClient } from "bun:sqlite";
import { resolve } from "node:path";
import type { CheckpointerMessage, CheckpointerReport } from "./checkpoint-worker.ts";

/** SQLite's own checkpoint threshold, put back on the serving connection if the checkpointer fails. */
const AUTOCHECKPOINT_PAGES = 1000;

// The thread's code: beside this file when run from source; in the compiled binary (where this
// module is bundled into the entry point at the root of its file system) the build's second entry
// point, `db/checkpoint-worker`, named from the root (Makefile).
const WORKER_URL = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("./db/checkpoint-worker.ts", Bun.pathToFileURL(Bun.main)).href
  : new URL("./checkpoint-worker.ts", import.meta.url).href;

export interface WalCheckpointer {
  /** Stops the thread and closes its connection; the serving connection may then close last. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the serving thread. A checkpoint copies the WAL's pages into the
 * database file and fsyncs both; run by SQLite's automatic checkpoint, it happens inside the
 * commit that crosses 1,000 pages, and every request waiting on the event loop waits for it
 * (tens of milliseconds on a real disk). Here the serving connection never checkpoints
 * (`wal_autocheckpoint = 0`) and a Worker with a connection of its own runs a PASSIVE
 * checkpoint every `intervalMs`. Durability is unchanged: a commit is durable once its frames
 * are in the WAL, whoever copies them later.
 *
 * Should the thread fail, the serving connection takes SQLite's automatic checkpoint back, so
 * that the WAL cannot grow without bound.
 */
export function startWalCheckpointer(client: SqliteClient, path: string, intervalMs: number, onFailure: (reason: string) => void): WalCheckpointer {
  client.exec("PRAGMA wal_autocheckpoint = 0");
  // Bun's Worker has ref and unref; the DOM's type, which the dashboard's code brings in, does not.
  const worker = new Worker(WORKER_URL) as Worker & { ref(): void; unref(): void };
  // The thread must not keep a CLI or a test process alive on its own.
  worker.unref();
  let stopped: (() => void) | undefined;
  let failed = false;
  const fail = (reason: string) => {
    failed = true;
    client.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    onFailure(reason);
    stopped?.();
  };
  worker.onmessage = (event: MessageEvent<CheckpointerReport>) => {
    const report = event.data;
    if (report === "stopped") stopped?.();
    else if (typeof report === "object" && "failed" in report) fail(report.failed);
  };
  worker.onerror = (event) => fail(event.message);
  const send = (message: CheckpointerMessage) => worker.postMessage(message);
  send({ path: resolve(path), intervalMs });
  return {
    stop: async () => {
      // Held until the thread has closed its connection, even where nothing else keeps the process up.
      worker.ref();
      if (!failed) {
        await new Promise<void>((done) => {
          stopped = done;
          send("stop");
        });
      }
      worker.terminate();
    },
  };
}
