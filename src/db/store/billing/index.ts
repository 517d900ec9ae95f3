import type { BillingStore, Settlement } from "../../../core/store.ts";
import { batched } from "../../batched.ts";
import type { Database } from "../../database.ts";
import { admitByKey } from "./admit-by-key.ts";
import { auditAccount } from "./audit.ts";
import { renewLeases, sweep } from "./leases.ts";
import { recordRefusal, release } from "./release.ts";
import { reserve } from "./reserve.ts";
import { AlreadyCharged, settle } from "./settle.ts";
import { pruneUsageWindows } from "./windows.ts";
import { settleBatch } from "./settle-batch.ts";

// At most 200 requests share a Postgres settlement statement, and at most four run at once,
// leaving the pool's other connections to admissions and the rest.
const SETTLEMENTS = { max: 200, inFlight: 4 };

export function billingStore(db: Database): BillingStore {
  // Postgres: concurrent requests' admissions (see `admitByKey`), and their settlements, share statements and commits.
  const settleTogether = db.dialect === "postgres" ? batched((items: Settlement[]) => settleBatch(db, items), SETTLEMENTS) : null;
  return {
    admitByKey: admitByKey(db),
    reserve: (input) => db.transaction(reserve(db.dialect, input)),
    settle: async (input) => {
      if (!settleTogether) return db.transaction(settle(input));
      const settled = await settleTogether(input);
      if (!settled) throw new AlreadyCharged(input.reservationId);
      return settled;
    },
    release: async (input) => {
      await db.transaction(release(input));
    },
    recordRefusal: (input) => db.transaction(recordRefusal(input)),
    renewLeases: (ids, leaseExpiresAt) => renewLeases(db, ids, leaseExpiresAt),
    sweepExpiredReservations: (now) => sweep(db, now),
    pruneUsageWindows: (after, beforeMinute, limits) => db.transaction(pruneUsageWindows(after, beforeMinute, limits)),
    auditAccount: (accountId) => db.run(auditAccount(accountId)),
  };
}
