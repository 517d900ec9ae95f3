// Files the binary writes are readable by their owner only, whatever the umask it was started
// with: the SQLite database, its -wal and -shm, the key file beside it, backups and exports.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGateway, spawnServe, type ServeProcess } from "../support/binary.ts";
import { signUpUser } from "../support/session.ts";

const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

describe("files the binary writes on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-modes-"));
  const database = join(dir, "gateway.db");
  const env = { DATABASE_URL: `sqlite:${database}` };
  let server: ServeProcess;
  let umask: number;

  beforeAll(async () => {
    // A umask that lets every user read what is created: the binary must not rely on the caller's.
    umask = process.umask(0o022);
    server = await spawnServe(env);
  });
  afterAll(async () => {
    await server.stop();
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  test("the database, its -wal and -shm and its key file are 0600 after serve", async () => {
    await signUpUser(server.url);
    for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}.key`]) {
      expect(existsSync(file)).toBe(true);
      expect({ file, mode: modeOf(file) }).toEqual({ file, mode: "600" });
    }
  });

  test("a backup and a usage export are 0600", async () => {
    const user = await signUpUser(server.url);
    const backup = join(dir, "backup.db");
    const csv = join(dir, "usage.csv");
    expect((await runGateway(["backup", "--out", backup], env)).code).toBe(0);
    expect((await runGateway(["usage", "export", "--email", user.email, "--out", csv], env)).code).toBe(0);
    expect([modeOf(backup), modeOf(csv)]).toEqual(["600", "600"]);
  });
});
