import type { Database } from "../../database.ts";
import { exec, int, rows } from "../../sql.ts";
import { release } from "./release.ts";

const SWEEP_BATCH = 100;
const RENEW_BATCH = 500;
const LEASE_EXPIRED = "Reservation lease expired: the gateway process handling the request stopped before it finished";

export async function renewLeases(db: Database, ids: string[], leaseExpiresAt: number): Promise<void> {
  for (let i = 0; i < ids.length; i += RENEW_BATCH) {
    const batch = ids.slice(i, i + RENEW_BATCH);
    const list = batch.map(() => "?").join(", ");
    // Postgres: locked in id order, as settlement batches lock them, so that they cannot deadlock.
    const locked = db.dialect === "postgres" ? `SELECT id FROM reservations WHERE id IN (${list}) ORDER BY id FOR UPDATE` : list;
    await db.run(exec(`UPDATE reservations SET lease_expires_at = ? WHERE id IN (${locked})`, leaseExpiresAt, ...batch));
  }
}

export async function sweep(db: Database, now: number): Promise<number> {
  const expired = await db.run(
    rows("SELECT id, created_at FROM reservations WHERE lease_expires_at < ? ORDER BY lease_expires_at LIMIT ?", now, SWEEP_BATCH),
  );
  let released = 0;
  for (const r of expired) {
    // Each in its own transaction; another instance sweeping the same row finds it gone.
    const done = await db.transaction(
      release({ reservationId: r.id as string, reason: LEASE_EXPIRED, latencyMs: now - int(r.created_at), now }),
    );
    if (done) released++;
  }
  return released;
}
