// Several `gateway serve` processes on one database, as behind a load balancer.
import { afterAll, beforeAll } from "bun:test";
import type { Dialect } from "../../src/db/migration-files.ts";
import { spawnServe, type ServeProcess } from "./binary.ts";
import { openBooks, type Books } from "./books.ts";
import { createTestDatabase, type TestDatabase } from "./databases.ts";

export interface Instances {
  all: ServeProcess[];
  /** The instance that the i-th request reaches: round-robin, as a load balancer spreads them. */
  at(i: number): ServeProcess;
  /** Sends `count` requests at once, the i-th through `at(i)`. */
  spread<T>(count: number, send: (baseUrl: string, i: number) => Promise<T>): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startInstances(count: number, env: Record<string, string>): Promise<Instances> {
  const all = await Promise.all(Array.from({ length: count }, () => spawnServe(env)));
  const at = (i: number) => all[i % all.length] as ServeProcess;
  return {
    all,
    at,
    spread: (n, send) => Promise.all(Array.from({ length: n }, (_, i) => send(at(i).url, i))),
    stop: async () => {
      await Promise.all(all.map((instance) => instance.stop()));
    },
  };
}

/** Whether a new TCP connection to `baseUrl`'s port is refused (nothing listens there any more). */
export async function refusesConnections(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  try {
    const socket = await Bun.connect({ hostname, port: Number(port), socket: { data() {} } });
    socket.end();
    return false;
  } catch {
    return true;
  }
}

export interface Cluster {
  instances: Instances;
  /** The test's own store on the instances' database. */
  books: Books;
  databaseUrl: string;
}

/**
 * Before the suite, `count` gateway processes on one fresh database (with `env`), and a store of
 * the test's own on it; after the suite, stops them and drops the database.
 */
export function useInstances(dialect: Dialect, count: number, env: Record<string, string>): () => Cluster {
  let testDb: TestDatabase | undefined;
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    const instances = await startInstances(count, { DATABASE_URL: testDb.url, ...env });
    cluster = { instances, books: openBooks(testDb.url), databaseUrl: testDb.url };
  });
  afterAll(async () => {
    await cluster?.instances.stop();
    await cluster?.books.close();
    await testDb?.drop();
  });
  return () => {
    if (!cluster) throw new Error("the instances have not started");
    return cluster;
  };
}
