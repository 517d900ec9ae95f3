import type { Store } from "../../core/ports.ts";
import type { Database } from "../database.ts";
import { first } from "../sql.ts";
import { accountGuardStore } from "./account-guard.ts";
import { accountLinkStore } from "./account-links.ts";
import { accountStore } from "./accounts.ts";
import { adminStore } from "./admin.ts";
import { alertStore } from "./alerts.ts";
import { auditStore } from "./audit.ts";
import { billingStore } from "./billing/index.ts";
import { checkoutStore } from "./checkout.ts";
import { dashboardStore } from "./dashboard.ts";
import { keyManagementStore, keyStore } from "./keys.ts";
import { modelStore } from "./models.ts";
import { rateLimitStore } from "./rate-limits.ts";
import { sessionStore } from "./sessions.ts";
import { usageExportStore } from "./usage-export.ts";
import { userStore } from "./users.ts";
import { checkoutEventStore } from "./webhooks.ts";

/** The one store behind core's ports, over either dialect. */
export function createStore(db: Database): Store {
  return {
    ...modelStore(db),
    ...billingStore(db),
    ...accountStore(db),
    ...keyStore(db),
    ...rateLimitStore(db),
    ...userStore(db),
    ...sessionStore(db),
    ...keyManagementStore(db),
    ...usageExportStore(db),
    ...dashboardStore(db),
    ...checkoutStore(db),
    ...checkoutEventStore(db),
    ...alertStore(db),
    ...adminStore(db),
    ...auditStore(db),
    ...accountLinkStore(db),
    ...accountGuardStore(db),
    ping: async () => {
      await db.run(first("SELECT 1 AS ok"));
    },
  };
}
