import type { Store } from "../../core/ports.ts";
import { storedSecrets, type StoredSecrets } from "../../core/stored-secrets.ts";
import type { Database } from "../database.ts";
import { exec, first } from "../sql.ts";
import { accountGuardStore } from "./accounts/guard.ts";
import { accountLinkStore } from "./accounts/links.ts";
import { accountStore } from "./accounts/records.ts";
import { adminStore } from "./admin.ts";
import { alertStore } from "./alerts.ts";
import { webhookStore } from "./webhooks.ts";
import { orgStore } from "./orgs/index.ts";
import { auditStore } from "./accounts/audit.ts";
import { billingStore } from "./billing/index.ts";
import { checkoutStore } from "./checkout/sessions.ts";
import { dashboardStore } from "./usage/history.ts";
import { keyManagementStore, keyStore } from "./keys/manage.ts";
import { modelStore } from "./models.ts";
import { rateLimitStore } from "./accounts/rate-limits.ts";
import { responsesStore } from "./responses.ts";
import { sessionStore } from "./accounts/sessions.ts";
import { signInDeviceStore } from "./accounts/devices.ts";
import { usageExportStore } from "./usage/export.ts";
import { userStore } from "./accounts/users.ts";
import { checkoutEventStore } from "./checkout/events.ts";
import { chargebackStore } from "./checkout/chargebacks.ts";
import { autoTopupStore } from "./checkout/auto-topup.ts";
import { topupEventStore } from "./checkout/topup-events.ts";

/**
 * Writes of no rows to each table a chat request writes, each as that request would: the
 * database checks that it may write (a read-only file, a revoked privilege) but writes nothing.
 */
function* probeWrites() {
  yield* exec("INSERT INTO reservations SELECT * FROM reservations WHERE 1 = 0");
  yield* exec("UPDATE reservations SET lease_expires_at = lease_expires_at WHERE 1 = 0");
  yield* exec("DELETE FROM reservations WHERE 1 = 0");
  yield* exec("UPDATE accounts SET inflight = inflight WHERE 1 = 0");
  yield* exec("UPDATE api_keys SET last_used_at = last_used_at WHERE 1 = 0");
  for (const table of ["usage_logs", "ledger_entries", "usage_windows", "alert_outbox"]) {
    yield* exec(`INSERT INTO ${table} SELECT * FROM ${table} WHERE 1 = 0`);
  }
}

/**
 * The one store behind core's ports, over either dialect. `secrets` keeps what must be read back
 * (TOTP and webhook secrets) encrypted; without it the store refuses to keep a new one.
 */
export function createStore(db: Database, secrets: StoredSecrets = storedSecrets(null)): Store {
  return {
    ...modelStore(db),
    ...billingStore(db),
    ...accountStore(db),
    ...keyStore(db),
    ...rateLimitStore(db),
    ...signInDeviceStore(db),
    ...userStore(db),
    ...sessionStore(db),
    ...keyManagementStore(db),
    ...usageExportStore(db),
    ...dashboardStore(db),
    ...checkoutStore(db),
    ...checkoutEventStore(db),
    ...chargebackStore(db),
    ...autoTopupStore(db),
    ...topupEventStore(db),
    ...alertStore(db),
    ...webhookStore(db, secrets),
    ...adminStore(db),
    ...auditStore(db),
    ...accountLinkStore(db),
    ...accountGuardStore(db, secrets),
    ...responsesStore(db),
    ...orgStore(db),
    ping: async () => {
      await db.run(first("SELECT 1 AS ok"));
    },
    probeWrites: () => db.run(probeWrites()),
  };
}
