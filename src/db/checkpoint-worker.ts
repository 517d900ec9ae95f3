// The WAL checkpointer's thread (started by wal-checkpointer.ts). It holds a connection of its
// own to the database file, so that a checkpoint's page copies and fsyncs block this thread and
// never the one that serves requests.
import { Database } from "bun:sqlite";

declare const self: Worker;

/** What the serving thread sends: where the database is and how often to checkpoint, or "stop". */
export type CheckpointerMessage = { path: string; intervalMs: number } | "stop";
/** What this thread answers: each checkpoint that copied pages, a failure, or that it has closed. */
export type CheckpointerReport = { checkpointedFrames: number } | { failed: string } | "stopped";

let client: Database | undefined;
let timer: Timer | undefined;

const report = (message: CheckpointerReport) => self.postMessage(message);

// PASSIVE copies what no reader still needs and never waits for, or blocks, a writer or a reader.
// A WAL with nothing new is not synced again, so an idle database costs one lock probe per tick.
function checkpoint(db: Database): void {
  try {
    const row = db.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number };
    if (row.checkpointed > 0) report({ checkpointedFrames: Number(row.checkpointed) });
  } catch (error) {
    report({ failed: error instanceof Error ? error.message : String(error) });
  }
}

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message === "stop") {
    clearInterval(timer);
    client?.close();
    report("stopped");
    return;
  }
  try {
    client = new Database(message.path, { create: false });
    // The checkpoint syncs the WAL before copying it and the database file after: synchronous
    // must stay at NORMAL or above here, or a copied page could be lost after the WAL is reset.
    client.exec("PRAGMA synchronous = NORMAL");
    client.exec("PRAGMA busy_timeout = 5000");
    const db = client;
    timer = setInterval(() => checkpoint(db), message.intervalMs);
  } catch (error) {
    report({ failed: error instanceof Error ? error.message : String(error) });
  }
};
