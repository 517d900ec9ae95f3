// `credits grant` has the console's bounds and never takes a balance below zero unless
// --allow-negative; `models set-price` refuses a price finer than the catalog's step.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { runGateway, runGatewayJson } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { uniqueEmail } from "../support/session.ts";

setDefaultTimeout(60_000);

describeEachDialect("the CLI's bounds on money", (dialect) => {
  let testDb: TestDatabase;
  const env = () => ({ DATABASE_URL: testDb.url });
  const cli = (...args: string[]) => runGateway(args, env());
  const cliJson = (...args: string[]) => runGatewayJson(args, env());
  const refused = async (args: string[], message: string) => {
    const run = await cli(...args);
    expect({ code: run.code, stderr: run.stderr.trim(), stdout: run.stdout }).toEqual({ code: 1, stderr: `error: ${message}`, stdout: "" });
  };
  const userWith = async (credits: string) => {
    const email = uniqueEmail("bounds");
    await cliJson("users", "create", "--email", email, "--credits", credits);
    return email;
  };
  const ledger = async (email: string) => (await cliJson("credits", "show", "--email", email)).ledgerSumUsd;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
  });
  afterAll(() => testDb.drop());

  test("grant refuses more than the console's 1,000,000 USD either way, and changes nothing", async () => {
    const email = await userWith("22.5");
    await refused(["credits", "grant", "--email", email, "--usd", "99999999"], "--usd must be at most 1000000 either way");
    await refused(["credits", "grant", "--email", email, "--usd", "-1000000.000000001", "--allow-negative"], "--usd must be at most 1000000 either way");
    expect(await ledger(email)).toBe("22.500000000");
    expect((await cliJson("credits", "grant", "--email", email, "--usd", "1000000")).balanceUsd).toBe("1000022.500000000");
  });

  test("an adjustment below zero is refused without --allow-negative, and taken with it", async () => {
    const email = await userWith("22.5");
    await refused(["credits", "grant", "--email", email, "--usd", "-1000"],
      "an adjustment of -1000.000000000 USD would take the balance of 22.500000000 USD below zero (--allow-negative to do it anyway); nothing was changed");
    expect(await ledger(email)).toBe("22.500000000");
    expect((await cliJson("credits", "grant", "--email", email, "--usd", "-1000", "--allow-negative")).balanceUsd).toBe("-977.500000000");
    expect(await ledger(email)).toBe("-977.500000000");
  });

  test("an adjustment to exactly zero is allowed", async () => {
    const email = await userWith("22.5");
    expect((await cliJson("credits", "grant", "--email", email, "--usd", "-22.5")).balanceUsd).toBe("0.000000000");
  });

  test("two adjustments at once cannot both pass on the same balance", async () => {
    const email = await userWith("22.5");
    const runs = await Promise.all([1, 2, 3].map(() => cli("credits", "grant", "--email", email, "--usd", "-10")));
    expect(runs.map((r) => r.code).sort()).toEqual([0, 0, 1]);
    expect(await ledger(email)).toBe("2.500000000");
  });

  test("users create refuses --credits above the grant bound", async () => {
    await refused(["users", "create", "--email", uniqueEmail("big"), "--credits", "1000001"], '--credits must be a USD amount from 0 to 1000000 (got "1000001")');
  });

  test("set-price refuses a price finer than the catalog's step of 0.0001, naming it, and keeps the old price", async () => {
    const [model] = await cliJson("models", "list");
    await refused(["models", "set-price", model.id, "--input", "0.123456", "--output", "1"],
      '--input must have at most 4 decimal places: catalog prices go in steps of 0.0001 USD per 1M tokens (got "0.123456")');
    await refused(["models", "set-price", model.id, "--input", "1", "--output", "20000"], '--output must be from 0 to 10000 (got "20000")');
    expect((await cliJson("models", "list"))[0].inputPerMillionUsd).toBe(model.inputPerMillionUsd);
    const repriced = await cliJson("models", "set-price", model.id, "--input", "0.1234", "--output", "1", "--cached-input", "none");
    expect(repriced).toMatchObject({ inputPerMillionUsd: "0.123400000", outputPerMillionUsd: "1.000000000" });
  });
});
