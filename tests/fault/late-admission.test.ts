// A reservation that the database takes only after the chat request stopped waiting for it
// (DATABASE_TIMEOUT_MS, Postgres) is released at once, not held until its lease runs out.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import { parseUsd, type Nanos } from "../../src/core/money.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createStore } from "../../src/db/store/index.ts";
import { startServer, type RunningServer } from "../../src/server/app.ts";
import { silentLogger } from "../../src/server/log.ts";
import { fundedKey } from "../support/accounts.ts";
import { expectBooksClosed, usageOutcomes } from "../support/books.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeOnPostgres, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { waitFor } from "../support/wait.ts";

const DEADLINE_MS = 200;
/** The admission step that answers late: the one that finds the key holds a key without limits; `reserve` one with. */
let slowStep: "admitByKey" | "reserve" = "admitByKey";

describeOnPostgres("a reservation taken after its request's deadline", () => {
  const fake = startFakeUpstream();
  let testDb: TestDatabase;
  let db: Database;
  let store: Store;
  let server: RunningServer;
  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATABASE_URL: testDb.url, DATABASE_TIMEOUT_MS: String(DEADLINE_MS), ...providerEnv(fake) });
    db = openTestDatabase(config.databaseUrl);
    await migrate(db);
    store = createStore(db);
    // The database answers the admission only after the request's deadline has passed.
    const late = (step: typeof slowStep) => (step === slowStep ? Bun.sleep(DEADLINE_MS * 2) : undefined);
    const slow: Store = {
      ...store,
      admitByKey: async (keyHash, admission) => (await late("admitByKey"), store.admitByKey(keyHash, admission)),
      reserve: async (input) => (await late("reserve"), store.reserve(input)),
    };
    server = startServer({ config, store: slow, log: silentLogger, now: Date.now });
  });
  afterAll(async () => {
    await server.stop();
    await db.close();
    await testDb.drop();
    fake.stop();
  });

  test.each([
    ["without limits", "admitByKey", {}],
    ["with a credit limit", "reserve", { creditLimit: parseUsd("0.5") as Nanos }],
  ] as const)("a key %s gets 503, is not forwarded, and its reservation is released as soon as it is taken", async (_title, step, limits) => {
    slowStep = step;
    const { secret, account } = await fundedKey(store, "1", limits);
    const forwardedBefore = fake.received.length;
    const chat = await postChat(server.url, secret, hello());
    expect(chat.status).toBe(503);
    expect(await readJson(chat)).toEqual(chatErrorShape(503, "service_unavailable_error"));
    // Well before the lease (5 minutes) could run out.
    await waitFor(async () => (await usageOutcomes(db, account.id)).length > 0, "the late reservation to be released", 5_000);
    expect(await usageOutcomes(db, account.id)).toEqual([
      { status: "error", error: "The reservation was taken after the request had stopped waiting for the database" },
    ]);
    const audit = await expectBooksClosed(store, account.id);
    expect(audit.balance).toBe(audit.credited);
    expect(fake.received.length).toBe(forwardedBefore);
  });
});
