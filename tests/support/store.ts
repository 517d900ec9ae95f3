import { afterAll, beforeAll } from "bun:test";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import type { Dialect } from "../../src/db/migration-files.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createStore } from "../../src/db/store/index.ts";
import { createTestDatabase, openTestDatabase, type TestDatabase } from "./databases.ts";

export interface TestStore {
  db: Database;
  store: Store;
}

/** A fresh, migrated database and its store for the suite's tests, dropped after them; read it through the getter. */
export function useStore(dialect: Dialect): () => TestStore {
  let testDb: TestDatabase | undefined;
  let opened: TestStore | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    const db = openTestDatabase(testDb.url);
    await migrate(db);
    opened = { db, store: createStore(db) };
  });
  afterAll(async () => {
    await opened?.db.close();
    await testDb?.drop();
  });
  return () => {
    if (!opened) throw new Error("the test database is not open");
    return opened;
  };
}
