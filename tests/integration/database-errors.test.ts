// A database that cannot be opened or reached is named in the error (its path, or its host,
// port and database, never its password), by the CLI and by serve alike.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGateway } from "../support/binary.ts";

const dir = mkdtempSync(join(tmpdir(), "gateway-db-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const closedPort = (): number => {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
};

test.each(["users list", "serve"])("`gateway %s` on a SQLite path that cannot be opened names the path", async (command) => {
  const args = command.split(" ");
  // A directory where the database file should be: SQLite cannot open it.
  const run = await runGateway(args, { DATABASE_URL: `sqlite:${dir}`, PORT: "0" });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("unable to open database file");
  expect(run.stderr).toContain(dir);
});

test.each(["users list", "serve"])("`gateway %s` on a Postgres server that refuses connections names its host, not its password", async (command) => {
  const args = command.split(" ");
  const port = closedPort();
  const run = await runGateway(args, { DATABASE_URL: `postgres://gateway:db-password@127.0.0.1:${port}/gatewaydb`, PORT: "0", SECRET_KEY: "ab".repeat(32) });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("Failed to connect");
  expect(run.stderr).toContain(`127.0.0.1:${port}/gatewaydb`);
  expect(run.stderr).not.toContain("db-password");
});
