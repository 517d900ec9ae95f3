// The links an account e-mail carries are live secrets (whoever holds one verifies the address
// or sets the password): once the e-mail is sent, no byte of the database's files still holds
// one. On SQLite: the database file, its free pages and its WAL. On Postgres: the file of every
// relation of the database (tables, indexes, TOAST), dead space included, once a checkpoint has
// written out what shared buffers held.
//
// Postgres's WAL is out of this test's scope: every change is written there first, so its
// segments hold the text as queued until Postgres recycles them (and an archive keeps them as
// long as it keeps anything); nothing the gateway does can rewrite them. docs/decisions.md,
// "Links on disk", says what bounds that exposure.
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { createLogger } from "../../src/server/log.ts";
import { describeEachDialect } from "../support/databases.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { linkToken } from "../support/mail.ts";
import { useGateway, type TestGateway } from "../support/server.ts";
import { request, signUpUser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

/** Every file SQLite keeps for the database, as bytes an attacker with the disk would read. */
function sqliteFiles(gateway: TestGateway): string[] {
  const path = gateway.config.databaseUrl.slice("sqlite:".length);
  return [path, `${path}-wal`, `${path}-journal`].filter(existsSync).map((file) => readFileSync(file).toString("latin1"));
}

/**
 * The file of every table, index, TOAST table and materialized view of the test database, read
 * by the server (the test connects as a superuser) after a checkpoint, directly rather than
 * through a pooler. Catalogs with no file of their own (relfilenode 0, mapped) hold no user data.
 */
async function postgresFiles(gateway: TestGateway): Promise<string[]> {
  const conn = new SQL(gateway.testDb.direct, { max: 1 });
  try {
    await conn.unsafe("CHECKPOINT");
    const paths = await conn.unsafe(
      "SELECT pg_relation_filepath(c.oid) AS path FROM pg_class c WHERE c.relfilenode <> 0 AND c.relkind IN ('r', 'i', 't', 'm')",
    ) as { path: string | null }[];
    const files: string[] = [];
    for (const { path } of paths) {
      if (path === null) continue;
      const [file] = await conn.unsafe("SELECT pg_read_binary_file($1::text) AS bytes", [path]) as { bytes: Uint8Array | null }[];
      if (file?.bytes) files.push(Buffer.from(file.bytes).toString("latin1"));
    }
    expect(files.length).toBeGreaterThan(10);
    return files;
  } finally {
    await conn.close();
  }
}

describeEachDialect("account e-mails on disk", (dialect) => {
  const lines: string[] = [];
  // The sender also runs every second; each account e-mail wakes it at once.
  const gateway = useGateway(dialect, { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "1000" }, createLogger({ write: (line) => lines.push(line) }));
  /** E-mails the sender logged as sent: it logs a round once the round is done, what follows each send included. */
  const sentLogged = () =>
    lines.map((line) => JSON.parse(line) as { message: string; sent?: number })
      .filter((entry) => entry.message === "outbox e-mails sent")
      .reduce((n, entry) => n + (entry.sent ?? 0), 0);

  test("hold no verification or reset link once sent, used or not", async () => {
    const user = await signUpUser(gateway().url);
    const verify = await linkToken(smtp, user.email, "verify");
    expect((await request(gateway().url, "POST", "/auth/verify", { token: verify })).status).toBe(200);
    await request(gateway().url, "POST", "/auth/password/forgot", { email: user.email });
    const reset = await linkToken(smtp, user.email, "reset");
    // A second reset link, left unused: it is live until it expires.
    await request(gateway().url, "POST", "/auth/password/forgot", { email: user.email });
    const unused = await linkToken(smtp, user.email, "reset", 2);
    expect((await request(gateway().url, "POST", "/auth/password/reset", { token: reset, password: "a new password 123" })).status).toBe(200);
    await waitFor(() => sentLogged() === 3, "the three e-mails' rounds to end", 5_000);
    // Nothing failed on the way, the wipe after each round included.
    expect(lines.filter((line) => JSON.parse(line).level !== "info")).toEqual([]);

    const files = dialect === "sqlite" ? sqliteFiles(gateway()) : await postgresFiles(gateway());
    for (const token of [verify, reset, unused]) {
      expect(files.some((bytes) => bytes.includes(token))).toBe(false);
    }
  });
});
