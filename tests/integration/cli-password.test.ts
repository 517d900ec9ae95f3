// `gateway users create`'s password, through the compiled binary: from standard input, from a
// prompt on a terminal that does not echo it, and (still) from --password with a warning.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BINARY, runGateway } from "../support/binary.ts";
import { createTestDatabase, openTestDatabase, type TestDatabase } from "../support/databases.ts";
import { createStore } from "../../src/db/store/index.ts";
import { uniqueEmail } from "../support/session.ts";

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase("sqlite");
});
afterAll(async () => {
  await testDb.drop();
});

/** Runs the binary with `stdin` as its standard input (not a terminal). */
async function withStdin(args: string[], stdin: string) {
  const proc = Bun.spawn([BINARY, ...args], { env: { ...process.env, DATABASE_URL: testDb.url }, stdin: new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Whether the account's stored hash is of exactly `password`. */
async function hasPassword(email: string, password: string): Promise<boolean> {
  const db = openTestDatabase(testDb.url);
  try {
    const found = await createStore(db).findCredentials(email);
    return found?.passwordHash ? Bun.password.verify(password, found.passwordHash) : false;
  } finally {
    await db.close();
  }
}

test("--password-stdin reads the whole of standard input with one trailing newline removed, and warns of nothing", async () => {
  const email = uniqueEmail("pw-stdin");
  const run = await withStdin(["users", "create", "--email", email, "--password-stdin", "--json"], "  spaced password kept \n");
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  expect(await hasPassword(email, "  spaced password kept ")).toBe(true);
  const short = await withStdin(["users", "create", "--email", uniqueEmail("pw-stdin"), "--password-stdin"], "short\n");
  expect({ code: short.code, stderr: short.stderr.trim() }).toEqual({ code: 1, stderr: "error: password must be at least 10 characters" });
}, 120_000);

test("--password still works, with a warning on stderr that others can see it; both flags at once are refused", async () => {
  const email = uniqueEmail("pw-flag");
  const run = await runGateway(["users", "create", "--email", email, "--password", "visible password", "--json"], { DATABASE_URL: testDb.url });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("warning: --password is visible to other users of this machine");
  expect(await hasPassword(email, "visible password")).toBe(true);
  const both = await withStdin(["users", "create", "--email", uniqueEmail("pw-both"), "--password", "visible password", "--password-stdin"], "other password\n");
  expect({ code: both.code, stderr: both.stderr.trim() }).toEqual({ code: 1, stderr: "error: give --password or --password-stdin, not both" });
}, 120_000);

test("without either flag on a terminal, it asks twice without echoing what is typed", async () => {
  const email = uniqueEmail("pw-tty");
  const secret = "typed at the prompt";
  // script(1) gives the binary a pseudo-terminal; each answer is typed once its prompt shows, as a person would.
  const proc = Bun.spawn(["script", "-qefc", `${BINARY} users create --email ${email}`, "/dev/null"], {
    env: { ...process.env, DATABASE_URL: testDb.url }, stdin: "pipe", stdout: "pipe", stderr: "pipe",
  });
  let screen = "";
  const decoder = new TextDecoder();
  const typed: string[] = [];
  for await (const chunk of proc.stdout) {
    screen += decoder.decode(chunk, { stream: true });
    const prompts = screen.match(/Password[^:]*: /g)?.length ?? 0;
    if (prompts > typed.length) {
      typed.push(secret);
      proc.stdin.write(`${secret}\r`);
      proc.stdin.flush();
    }
  }
  expect(await proc.exited).toBe(0);
  expect(typed).toHaveLength(2);
  expect(screen).toContain(`created ${email}`);
  expect(screen).not.toContain(secret);
  expect(await hasPassword(email, secret)).toBe(true);
}, 120_000);
