import type { Store } from "../../core/store.ts";
import type { Database } from "../database.ts";
import { first } from "../sql.ts";
import { modelStore } from "./models.ts";

/** The one store behind core's ports, over either dialect. */
export function createStore(db: Database): Store {
  return {
    ...modelStore(db),
    ping: async () => {
      await db.run(first("SELECT 1 AS ok"));
    },
  };
}
