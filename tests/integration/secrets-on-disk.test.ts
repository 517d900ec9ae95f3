// The links an account e-mail carries are live secrets (whoever holds one verifies the address
// or sets the password): once the e-mail is sent, no byte of the SQLite database, its free
// pages and its WAL included, still holds one.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { rows } from "../../src/db/sql.ts";
import { startFakeSmtp } from "../support/fake-smtp.ts";
import { linkToken } from "../support/mail.ts";
import { useGateway } from "../support/server.ts";
import { request, signUpUser } from "../support/session.ts";
import { waitFor } from "../support/wait.ts";

const smtp = await startFakeSmtp();
afterAll(() => smtp.stop());

describe("account e-mails on SQLite", () => {
  const gateway = useGateway("sqlite", { SMTP_URL: smtp.url, ALERT_INTERVAL_MS: "10" });
  const path = () => gateway().config.databaseUrl.slice("sqlite:".length);
  /** Every file SQLite keeps for the database, as bytes an attacker with the disk would read. */
  const onDisk = () => [path(), `${path()}-wal`, `${path()}-journal`].filter(existsSync).map((file) => readFileSync(file).toString("latin1"));
  const unsent = () => gateway().db.run(rows("SELECT count(*) AS n FROM alert_outbox WHERE sent_at IS NULL"));

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
    await waitFor(async () => Number((await unsent())[0]?.n) === 0, "the outbox to be sent", 5_000);

    for (const token of [verify, reset, unused]) {
      expect(onDisk().some((bytes) => bytes.includes(token))).toBe(false);
    }
  });
});

