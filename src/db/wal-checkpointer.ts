import type { Database as SqliteClient } from "bun:sqlite";
import { resolve } from "node:path";
import type { CheckpointerMessage, CheckpointerReport } from "./checkpoint-worker.ts";

/** SQLite's own checkpoint threshold, put back on the serving connection if the checkpointer fails. */
const AUTOCHECKPOINT_PAGES = 1000;
/** The serving connection's threshold while the checkpointer runs: the WAL's bound under unbroken load. */
export const BACKSTOP_PAGES = 10_000;
/** How often the thread looks at how far the WAL is ahead of the database file. */
const GLANCE_INTERVAL_MS = 50;
/**
 * Uncopied frames (pages) that start a pass at once: SQLite's own threshold, so that the copying
 * and syncing cost what they did on the serving thread (passes every 256 frames cost 2–12% more
 * CPU per request at 64 in flight: hot pages are copied once per pass); also about what the
 * backstop can find left (4 MB).
 */
const FRAMES_PER_PASS = 1000;

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
 * (tens of milliseconds on a real disk). Here a Worker with a connection of its own runs a
 * PASSIVE checkpoint once `FRAMES_PER_PASS` frames wait, and at least every `maxIdleMs` while
 * any do. Durability is unchanged: a commit is durable once its frames are in the WAL,
 * whoever copies them later.
 *
 * Only a writer can start the WAL over from its beginning, and only when it finds every frame
 * already copied. Between requests that happens by itself; under load without a pause, the
 * serving thread's commits keep adding frames while the Worker copies, and the WAL would grow
 * without end. So the serving connection keeps SQLite's automatic checkpoint at
 * `BACKSTOP_PAGES`, ten times its default: by then the Worker has copied nearly everything, the
 * commit that crosses it copies the rest (its fsyncs remain) and the WAL starts over. The
 * commit that starts the WAL over also syncs its header, on the serving thread: SQLite does so
 * whoever checkpointed, so that a power loss cannot leave old frames read as new.
 *
 * Should the thread fail, the serving connection takes SQLite's default back.
 */
export function startWalCheckpointer(client: SqliteClient, path: string, maxIdleMs: number, onFailure: (reason: string) => void): WalCheckpointer {
  client.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
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
    else fail(report.failed);
  };
  worker.onerror = (event) => fail(event.message);
  const send = (message: CheckpointerMessage) => worker.postMessage(message);
  send({ path: resolve(path), intervalMs: GLANCE_INTERVAL_MS, maxIdleMs, framesBehind: FRAMES_PER_PASS });
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
