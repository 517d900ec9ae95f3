// `gateway serve` and a port that is already taken: it refuses, whoever holds the port, unless
// every process sharing it has REUSE_PORT=on (the kernel then spreads connections over them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BINARY, spawnServe, type CliRun, type ServeProcess } from "../support/binary.ts";
import { createTestDatabase, type TestDatabase } from "../support/databases.ts";

/** Runs `gateway serve --port <port>`; one still running after `ms` is stopped and reported as code null. */
// A refused serve exits at once; the cap only ends one that wrongly started (a loaded host may take seconds to get there).
async function serveOnTakenPort(port: number, env: Record<string, string>, ms = 25_000): Promise<Omit<CliRun, "code"> & { code: number | null }> {
  const proc = Bun.spawn([BINARY, "serve", "--port", String(port)], { env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, ms);
  const [stdout, stderr, exited] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code: timedOut ? null : exited, stdout, stderr };
}

const TEST_TIMEOUT_MS = 90_000;
const portOf = (server: ServeProcess) => Number(new URL(server.url).port);
const refusal = (port: number) => `error: port ${port} on 127.0.0.1 is already in use (another gateway?); stop it or choose another PORT`;

describe("serve on a port that is taken", () => {
  let testDb: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    testDb = await createTestDatabase("sqlite");
    env = { DATABASE_URL: testDb.url };
  });
  afterAll(() => testDb.drop());

  test("a second gateway on a running gateway's port exits 1 with one line naming host and port", async () => {
    const first = await spawnServe(env);
    try {
      const second = await serveOnTakenPort(portOf(first), env);
      expect({ code: second.code, last: second.stderr.trim().split("\n").at(-1) }).toEqual({ code: 1, last: refusal(portOf(first)) });
      expect(second.stderr).not.toContain("    at ");
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  }, TEST_TIMEOUT_MS);

  test.each([
    [false, "off"],
    [true, "off"],
    [false, "on"],
  ])("refuses a port another program holds (its SO_REUSEPORT: %p, REUSE_PORT=%s)", async (reusePort, reuseSetting) => {
    using other = Bun.serve({ port: 0, hostname: "127.0.0.1", reusePort, fetch: () => new Response("not the gateway") });
    const run = await serveOnTakenPort(other.port!, { ...env, REUSE_PORT: reuseSetting });
    expect({ code: run.code, last: run.stderr.trim().split("\n").at(-1) }).toEqual({ code: 1, last: refusal(other.port!) });
  }, TEST_TIMEOUT_MS);

  test("a gateway without REUSE_PORT refuses the port of one that has it", async () => {
    const first = await spawnServe({ ...env, REUSE_PORT: "on" });
    try {
      const second = await serveOnTakenPort(portOf(first), env);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(refusal(portOf(first)));
    } finally {
      expect(await first.stop()).toBe(0);
    }
  }, TEST_TIMEOUT_MS);

  test("two gateways with REUSE_PORT=on share a port", async () => {
    const first = await spawnServe({ ...env, REUSE_PORT: "on" });
    try {
      const second = await spawnServe({ ...env, REUSE_PORT: "on" }, ["--port", String(portOf(first))]);
      try {
        expect(portOf(second)).toBe(portOf(first));
        expect((await fetch(`${second.url}/health`)).status).toBe(200);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    } finally {
      expect(await first.stop()).toBe(0);
    }
  }, TEST_TIMEOUT_MS);

  test("REUSE_PORT takes on or off only", async () => {
    const run = await serveOnTakenPort(0, { ...env, REUSE_PORT: "maybe" });
    expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({ code: 2, stderr: 'error: REUSE_PORT must be one of on, off (got "maybe")' });
  }, TEST_TIMEOUT_MS);
});
