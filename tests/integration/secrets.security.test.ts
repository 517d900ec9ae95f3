// Secrets are shown once and kept nowhere: after keys are made (dashboard, rotation, CLI) and
// used (accepted, revoked, wrong), and users sign up and in (right and wrong), no table, no
// database file and no log line of the compiled server or the CLI holds a key's plaintext, a
// password, a session token or a provider key. Keys are found by the SHA-256 of the plaintext.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { hashKey } from "../../src/core/keys/secret.ts";
import { rows } from "../../src/db/sql.ts";
import { runGateway, spawnServe, type CliRun, type ServeProcess } from "../support/binary.ts";
import { verifyEmail } from "../support/accounts.ts";
import { openBooks, type Books } from "../support/books.ts";
import { hello, postChat } from "../support/chat.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { PASSWORD, logInUser, request, signUpUser, uniqueEmail } from "../support/session.ts";

setDefaultTimeout(60_000); // a server process, several CLI runs and argon2 sign-ins, on a host that may be busy

const fake = startFakeUpstream();
afterAll(() => fake.stop());

/** Every value of every row of every table, as text. */
async function everyStoredValue(books: Books, dialect: string): Promise<string> {
  const tables = dialect === "sqlite"
    ? await books.db.run(rows<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'"))
    : await books.db.run(rows<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"));
  const dumps = await Promise.all(
    tables.map(({ name }) => books.db.run(rows(`SELECT * FROM "${name}"`)).then((found) => JSON.stringify(found, (_k, v) => (typeof v === "bigint" ? String(v) : v)))),
  );
  return dumps.join("\n");
}

describeEachDialect("secrets are kept nowhere", (dialect) => {
  let testDb: TestDatabase;
  let books: Books;
  let gateway: ServeProcess;
  const secrets = new Map<string, string>(); // what → value
  const cliRuns: CliRun[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    gateway = await spawnServe({ DATABASE_URL: testDb.url, ...providerEnv(fake) });
    books = openBooks(testDb.url);
    const env = { DATABASE_URL: testDb.url };
    const url = gateway.url;

    const user = await signUpUser(url);
    await verifyEmail(books.store, user.email);
    secrets.set("password", PASSWORD);
    secrets.set("sign-up session", user.cookie.split("=")[1]!);
    await request(url, "POST", "/auth/login", { email: user.email, password: `${PASSWORD}!` });
    secrets.set("wrong password", `${PASSWORD}!`);
    secrets.set("login session", (await logInUser(url, user.email)).cookie.split("=")[1]!);

    const first = await readJson(await user.send("POST", "/keys/generate", { name: "first" }));
    const second = await readJson(await user.send("POST", "/keys/generate", { name: "second" }));
    const [secondView] = (await readJson(await user.send("GET", "/keys/generate"))).keys;
    const rotated = await readJson(await user.send("POST", `/keys/${secondView.id}/rotate`));
    secrets.set("generated key", first.key).set("rotated-away key", second.key).set("rotation's key", rotated.key);

    const cliEmail = uniqueEmail("cli");
    const cliPassword = "cli password 123";
    cliRuns.push(await runGateway(["users", "create", "--email", cliEmail, "--password", cliPassword, "--credits", "1"], env));
    const cliKey = await runGateway(["keys", "create", "--email", cliEmail, "--json"], env);
    cliRuns.push(await runGateway(["keys", "list", "--email", cliEmail], env));
    secrets.set("CLI password", cliPassword).set("CLI key", JSON.parse(cliKey.stdout).key);

    for (const key of [first.key, rotated.key, JSON.parse(cliKey.stdout).key]) expect((await postChat(url, key, hello())).status).toBe(200);
    expect((await postChat(url, second.key, hello())).status).toBe(401); // rotated away
    const wrong = `${first.key.slice(0, -4)}abcd`;
    expect((await postChat(url, wrong, hello())).status).toBe(401);
    secrets.set("wrong key", wrong);
    for (const [name, value] of Object.entries(providerEnv(fake))) if (name.endsWith("_API_KEY")) secrets.set(name, value);
  });
  afterAll(async () => {
    await gateway.stop();
    await books.close();
    await testDb.drop();
  });

  test("no table holds a secret; each key is stored as the SHA-256 of its plaintext", async () => {
    const stored = await everyStoredValue(books, dialect);
    for (const [what, value] of secrets) expect({ what, stored: stored.includes(value) }).toEqual({ what, stored: false });
    const hashes = (await books.db.run(rows<{ hash: string }>("SELECT hash FROM api_keys"))).map((r) => r.hash);
    for (const what of ["generated key", "rotated-away key", "rotation's key", "CLI key"]) {
      expect(hashes).toContain(hashKey(secrets.get(what)!));
    }
  });

  test("no log line of the server or the CLI holds a secret", () => {
    const logs = [...gateway.logs, ...cliRuns.flatMap((run) => [run.stdout, run.stderr])].join("\n");
    expect(gateway.logs.length).toBeGreaterThan(0);
    for (const [what, value] of secrets) expect({ what, logged: logs.includes(value) }).toEqual({ what, logged: false });
  });

  test.skipIf(dialect !== "sqlite")("no SQLite file (database, WAL) holds a secret in its bytes", () => {
    const dir = dirname(testDb.url.slice("sqlite:".length));
    const bytes = readdirSync(dir).map((file) => readFileSync(join(dir, file)).toString("latin1")).join("");
    expect(bytes.length).toBeGreaterThan(0);
    for (const [what, value] of secrets) expect({ what, inFile: bytes.includes(value) }).toEqual({ what, inFile: false });
  });
});
