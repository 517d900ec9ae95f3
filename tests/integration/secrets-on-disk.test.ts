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
import { createLogger } from "../../src/server/log.ts";
import type { Dialect } from "../../src/db/migration-files.ts";
import { describeEachDialect, describeOnPostgres } from "../support/databases.ts";
import { databaseFiles } from "../support/disk-bytes.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { linkToken } from "../support/mail.ts";
import { useGateway } from "../support/server.ts";
import { request, signUpUser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

/** A gateway whose e-mail sender runs every second, and the count of e-mails it logged as sent. */
function gatewayWithSender(dialect: Dialect) {
  const lines: string[] = [];
  // The sender also runs every second; each account e-mail wakes it at once.
  const gateway = useGateway(dialect, { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "1000" }, createLogger({ write: (line) => lines.push(line) }));
  /** E-mails the sender logged as sent: it logs a round once the round is done, what follows each send included. */
  const sentLogged = () =>
    lines.map((line) => JSON.parse(line) as { message: string; sent?: number })
      .filter((entry) => entry.message === "outbox e-mails sent")
      .reduce((n, entry) => n + (entry.sent ?? 0), 0);
  /** Log lines above info: a failed send or wipe. */
  const complaints = () => lines.filter((line) => JSON.parse(line).level !== "info");
  return { gateway, sentLogged, complaints };
}

describeEachDialect("account e-mails on disk", (dialect) => {
  const { gateway, sentLogged, complaints } = gatewayWithSender(dialect);

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
    expect(complaints()).toEqual([]);

    const files = await databaseFiles(gateway().testDb);
    for (const token of [verify, reset, unused]) {
      expect(files.some((bytes) => bytes.includes(token))).toBe(false);
    }
  });
});

// Postgres keeps a deleted row for any transaction that began before the deletion, and the
// gateway's own requests are such transactions; the wipe must not depend on none being open.
describeOnPostgres("account e-mails on disk, while a transaction older than the sending is open", () => {
  const { gateway, sentLogged, complaints } = gatewayWithSender("postgres");

  test("hold no link once sent", async () => {
    const held = new SQL(gateway().testDb.direct, { max: 1 });
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let begun = () => {};
    const hasBegun = new Promise<void>((resolve) => (begun = resolve));
    // pg_current_xact_id gives the transaction an id, which holds back what Postgres may discard.
    const transaction = held.begin(async (tx) => {
      await tx`SELECT pg_current_xact_id()`;
      begun();
      await released;
    });
    try {
      await hasBegun;
      const user = await signUpUser(gateway().url);
      const verify = await linkToken(smtp, user.email, "verify");
      await waitFor(() => sentLogged() === 1, "the e-mail's round to end", 5_000);
      release();
      await transaction;
      expect(complaints()).toEqual([]);
      const files = await databaseFiles(gateway().testDb);
      expect(files.some((bytes) => bytes.includes(verify))).toBe(false);
    } finally {
      release();
      await held.close();
    }
  });
});
