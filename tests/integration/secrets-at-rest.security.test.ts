// TOTP secrets and webhook signing secrets are kept encrypted with the deployment's key: no byte
// of the database's files (nor of a backup) holds one, whether it was stored so or was in clear
// in an older database and encrypted in place at start-up; sign-in with TOTP and signed events
// still work. On Postgres without a key, no such secret is stored and `serve` refuses a database
// that holds encrypted ones.
import { afterAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Secret } from "otpauth";
import type { Server } from "bun";
import { totpCode } from "../../src/core/accounts/totp.ts";
import type { Nanos } from "../../src/core/money.ts";
import { secretsAtStart } from "../../src/db/secrets-at-rest.ts";
import { exec } from "../../src/db/sql.ts";
import { deploymentKey } from "../../src/server/secret-key.ts";
import { verifyEmail } from "../support/accounts.ts";
import { runGateway } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, describeOnPostgres, openTestDatabase } from "../support/databases.ts";
import { databaseFiles } from "../support/disk-bytes.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, request, signUpUser } from "../support/session.ts";
import { startGateway, useGateway, type TestGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

/** A webhook receiver on loopback that keeps each event's signature and body. */
function startReceiver() {
  const received: { signature: string; body: string }[] = [];
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      received.push({ signature: req.headers.get("x-gateway-signature") ?? "", body: await req.text() });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hooks`, received, stop: () => server.stop(true) };
}

/** Whether `got` is signed with `secret`, as a receiver checks it. */
function signedWith(secret: string, got: { signature: string; body: string }): boolean {
  const parts = Object.fromEntries(got.signature.split(",").map((p) => p.split("=") as [string, string]));
  return parts.v1 === createHmac("sha256", secret).update(`${parts.t}.${got.body}`).digest("hex");
}

/** Every form in which a secret could sit in a file: as shown, and the TOTP secret's raw bytes. */
const forms = (totp: string, webhook: string): string[] =>
  [totp, Buffer.from(Secret.fromBase32(totp).bytes).toString("latin1"), webhook, webhook.slice("whsec_".length)];

/** An account with TOTP on and a webhook endpoint; answers the secrets as the set-up showed them. */
async function enrolled(gateway: TestGateway, receiverUrl: string) {
  const user = await signUpUser(gateway.url);
  await verifyEmail(gateway.store, user.email);
  const { secret: totp } = await readJson(await user.send("POST", "/auth/totp/setup"));
  expect((await user.send("POST", "/auth/totp/enable", { code: totpCode(totp, Date.now()) })).status).toBe(200);
  const { secret: webhook } = await readJson(await user.send("PUT", "/settings/webhook", { url: receiverUrl }));
  const accountId = (await gateway.store.findAccountByEmail(user.email))!.id;
  return { email: user.email, accountId, totp: totp as string, webhook: webhook as string };
}

/** Signs in with the password and a TOTP code of a later step (each step is accepted once). */
const signInWithCode = (gateway: TestGateway, email: string, totp: string, stepsAhead: number) =>
  request(gateway.url, "POST", "/auth/login", { email, password: PASSWORD, code: totpCode(totp, Date.now() + stepsAhead * 30_000) });

describeEachDialect("TOTP and webhook secrets at rest", (dialect) => {
  const receiver = startReceiver();
  afterAll(() => receiver.stop());
  const gateway = useGateway(dialect, { WEBHOOK_ALLOW_PRIVATE: "1", ALERT_INTERVAL_MS: "10" });

  test("no byte of the database or of a backup holds them; TOTP sign-in and signed events still work", async () => {
    const { email, accountId, totp, webhook } = await enrolled(gateway(), receiver.url);
    expect((await signInWithCode(gateway(), email, totp, 1)).status).toBe(200);
    await gateway().store.addCredit({ accountId, amount: 1_000_000_000n as Nanos, kind: "grant", note: "test", now: Date.now() });
    await waitFor(() => receiver.received.some((got) => got.body.includes("credits.granted")), "the signed event", 5_000);
    expect(receiver.received.every((got) => signedWith(webhook, got))).toBe(true);

    const files = await databaseFiles(gateway().testDb);
    // The scan reads the account's rows: its e-mail is there.
    expect(files.some((bytes) => bytes.includes(email))).toBe(true);
    for (const form of forms(totp, webhook)) expect(files.some((bytes) => bytes.includes(form))).toBe(false);
    if (dialect !== "sqlite") return;
    const out = join(mkdtempSync(join(tmpdir(), "gateway-secrets-")), "backup.db");
    const backup = await runGateway(["backup", "--out", out], { DATABASE_URL: gateway().config.databaseUrl });
    expect(backup.code).toBe(0);
    const copy = readFileSync(out).toString("latin1");
    expect(copy.includes(email)).toBe(true);
    for (const form of forms(totp, webhook)) expect(copy.includes(form)).toBe(false);
  });

  test("secrets an older database kept in clear are encrypted in place at start-up, once, with two instances starting together", async () => {
    const { email, accountId, totp, webhook } = await enrolled(gateway(), receiver.url);
    // As a database from before encryption kept them.
    await gateway().db.run(exec("UPDATE accounts SET totp_secret = ? WHERE id = ?", totp, accountId));
    await gateway().db.run(exec("UPDATE webhook_endpoints SET secret = ? WHERE account_id = ?", webhook, accountId));
    expect((await databaseFiles(gateway().testDb)).some((bytes) => bytes.includes(totp))).toBe(true);

    const key = deploymentKey(gateway().config);
    const handles = [openTestDatabase(gateway().testDb.url), openTestDatabase(gateway().testDb.url)];
    try {
      const starts = await Promise.all(handles.map((db) => secretsAtStart(db, key)));
      const sealed = starts.map((start) => ("sealedNow" in start ? start.sealedNow : -1));
      expect(sealed.reduce((a, b) => a + b)).toBe(2);
      expect(sealed.every((n) => n >= 0)).toBe(true);
      expect(await secretsAtStart(handles[0]!, key)).toMatchObject({ sealedNow: 0 });
    } finally {
      await Promise.all(handles.map((db) => db.close()));
    }
    const files = await databaseFiles(gateway().testDb);
    for (const form of forms(totp, webhook)) expect(files.some((bytes) => bytes.includes(form))).toBe(false);
    expect((await signInWithCode(gateway(), email, totp, 1)).status).toBe(200);
    expect((await gateway().store.webhookEndpoint(accountId))?.secret).toBe(webhook);
  });
});

describeOnPostgres("TOTP and webhook secrets on Postgres without a key", () => {
  test("a new TOTP or webhook secret is refused, naming SECRET_KEY", async () => {
    const gateway = await startGateway("postgres", { SECRET_KEY: "", WEBHOOK_ALLOW_PRIVATE: "1" });
    try {
      const user = await signUpUser(gateway.url);
      await verifyEmail(gateway.store, user.email);
      for (const [method, path, body] of [["POST", "/auth/totp/setup", undefined], ["PUT", "/settings/webhook", { url: "http://127.0.0.1:9/hooks" }]] as const) {
        const res = await user.send(method, path, body);
        expect(res.status).toBe(503);
        expect((await readJson(res)).error).toContain("SECRET_KEY");
      }
    } finally {
      await gateway.stop();
    }
  });

  test("serve refuses to start (exit 2, naming SECRET_KEY) over a database holding encrypted secrets", async () => {
    const testDb = await createTestDatabase("postgres");
    const receiver = startReceiver();
    try {
      const keyed = await startGateway("postgres", { WEBHOOK_ALLOW_PRIVATE: "1" }, testDb);
      await enrolled(keyed, receiver.url);
      await keyed.stop();
      await expect(startGateway("postgres", { SECRET_KEY: "" }, testDb)).rejects.toThrow("SECRET_KEY");
      const serve = await runGateway(["serve", "--port", "0"], { DATABASE_URL: testDb.url });
      expect(serve.code).toBe(2);
      expect(serve.stderr).toContain("SECRET_KEY");
    } finally {
      await receiver.stop();
      await testDb.drop();
    }
  });
});

describe("the forms scanned for", () => {
  test("include the TOTP secret's raw bytes", () => {
    expect(forms("JBSWY3DPEHPK3PXP", "whsec_00")[1]).toBe("Hello!\u00de\u00ad\u00be\u00ef");
  });
});
