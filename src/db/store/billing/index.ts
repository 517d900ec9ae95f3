import type { BillingStore, NewReservation, Settlement } from "../../../core/store.ts";
import { batched } from "../../batched.ts";
import type { Database } from "../../database.ts";
import { admitMany } from "./admit-batch.ts";
import { auditAccount } from "./audit.ts";
import { renewLeases, sweep } from "./leases.ts";
import { release } from "./release.ts";
import { hasKeyLimits, reserve } from "./reserve.ts";
import { AlreadyCharged, settle } from "./settle.ts";
import { settleBatch } from "./settle-batch.ts";

// At most 200 requests share a Postgres admission or settlement statement, and at most four of
// each kind run at once, leaving the pool's other connections to key lookups and the rest.
const BATCHES = { max: 200, inFlight: 4 };

export function billingStore(db: Database): BillingStore {
  // Postgres: concurrent requests' admissions, and their settlements, share statements and commits.
  const batches =
    db.dialect === "postgres"
      ? {
          admit: batched((items: NewReservation[]) => db.run(admitMany(items)), BATCHES),
          settle: batched((items: Settlement[]) => settleBatch(db, items), BATCHES),
        }
      : null;
  return {
    reserve: async (input) => {
      if (batches && !hasKeyLimits(input.key)) {
        const reservationId = await batches.admit(input);
        if (reservationId) return { ok: true, reservationId };
      }
      return db.transaction(reserve(db.dialect, input));
    },
    settle: async (input) => {
      if (!batches) return db.transaction(settle(input));
      const settled = await batches.settle(input);
      if (!settled) throw new AlreadyCharged(input.reservationId);
      return settled;
    },
    release: async (input) => {
      await db.transaction(release(input));
    },
    renewLeases: (ids, leaseExpiresAt) => renewLeases(db, ids, leaseExpiresAt),
    sweepExpiredReservations: (now) => sweep(db, now),
    auditAccount: (accountId) => db.run(auditAccount(accountId)),
  };
}
