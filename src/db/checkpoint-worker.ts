// The WAL checkpointer's thread (started by wal-checkpointer.ts). It holds a connection of its
// own to the database file, so that a checkpoint's page copies and fsyncs block this thread and
// never the one that serves requests.
import { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

declare const self: Worker;

/** What the serving thread sends: where the database is and how often to look at its WAL, or "stop". */
export type CheckpointerMessage = { path: string; intervalMs: number; maxIdleMs: number; framesBehind: number } | "stop";
/**
 * What this thread answers: a failure, or that it has closed. Nothing per checkpoint: every
 * message wakes the serving thread's event loop.
 */
export type CheckpointerReport = { failed: string } | "stopped";

let client: Database | undefined;
let shm: number | undefined;
let timer: Timer | undefined;

const report = (message: CheckpointerReport) => self.postMessage(message);

/**
 * Frames in the WAL not yet copied into the database, read from the shared-memory index
 * (https://sqlite.org/walformat.html: the header's mxFrame at byte 16, the checkpoint's
 * nBackfill at byte 96, native byte order) without a lock: a glance to decide whether to
 * checkpoint, never trusted for more.
 */
function framesBehind(index: number, header: Buffer): number {
  if (readSync(index, header, 0, 100, 0) < 100) return 0;
  const [mxFrame, nBackfill] = endianness() === "LE"
    ? [header.readUInt32LE(16), header.readUInt32LE(96)]
    : [header.readUInt32BE(16), header.readUInt32BE(96)];
  return mxFrame > nBackfill ? mxFrame - nBackfill : 0;
}

// PASSIVE copies what no reader still needs and never waits for, or blocks, a writer or a reader.
function checkpoint(db: Database): void {
  try {
    db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (error) {
    // Once: the serving connection takes its own checkpoints back on the report.
    clearInterval(timer);
    report({ failed: error instanceof Error ? error.message : String(error) });
  }
}

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message === "stop") {
    clearInterval(timer);
    if (shm !== undefined) closeSync(shm);
    client?.close();
    report("stopped");
    return;
  }
  try {
    const db = (client = new Database(message.path, { create: false }));
    // The checkpoint syncs the WAL before copying it and the database file after: synchronous
    // must stay at NORMAL or above here, or a copied page could be lost after the WAL is reset.
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    // The serving connection made the index when it opened the WAL.
    const index = (shm = openSync(`${message.path}-shm`, "r"));
    const header = Buffer.alloc(100);
    let lastPass = Date.now();
    // A pass when enough frames wait, so that the serving thread's backstop finds little left to
    // copy; and at least every `maxIdleMs` while any wait, since a checkpoint is also when the
    // WAL is synced to disk. Each pass costs two fsyncs here.
    timer = setInterval(() => {
      const behind = framesBehind(index, header);
      if (behind >= message.framesBehind || (behind > 0 && Date.now() - lastPass >= message.maxIdleMs)) {
        checkpoint(db);
        lastPass = Date.now();
      }
    }, message.intervalMs);
  } catch (error) {
    report({ failed: error instanceof Error ? error.message : String(error) });
  }
};
