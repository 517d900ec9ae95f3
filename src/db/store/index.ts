import type { Store } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { first } from "../sql.ts";
import { accountStore } from "./accounts.ts";
import { keyStore } from "./keys.ts";
import { modelStore } from "./models.ts";
import { rateLimitStore } from "./rate-limits.ts";

/** The one store behind core's ports, over either dialect. */
export function createStore(db: Database): Store {
  return {
    ...modelStore(db),
    ...accountStore(db),
    ...keyStore(db),
    ...rateLimitStore(db),
    ping: async () => {
      await db.run(first("SELECT 1 AS ok"));
    },
  };
}
