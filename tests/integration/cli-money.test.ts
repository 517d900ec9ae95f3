// Amounts of money the CLI prints, in tables and in --json: exact to the nano-USD, as the
// ledger keeps them and as `credits show` prints them (9 places), never rounded to 6. With
// --json the record is otherwise the HTTP API's (cli-json.test.ts).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { runGateway, runGatewayJson } from "../support/binary.ts";
import { createTestDatabase, describeEachDialect, type TestDatabase } from "../support/databases.ts";
import { uniqueEmail } from "../support/session.ts";

setDefaultTimeout(30_000);

describeEachDialect("the CLI prints money exactly", (dialect) => {
  let testDb: TestDatabase;
  const env = () => ({ DATABASE_URL: testDb.url });
  const cli = (...args: string[]) => runGateway(args, env());
  const cliJson = (...args: string[]) => runGatewayJson(args, env());

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
  });
  afterAll(() => testDb.drop());

  test("users create and users list show a balance to the nano-USD, in text and JSON", async () => {
    const email = uniqueEmail("exact");
    const created = await cli("users", "create", "--email", email, "--credits", "0.123456789");
    expect(created.stdout.trim()).toBe(`created ${email} with 0.123456789 USD`);
    const listed = (await cliJson("users", "list")) as { email: string; balanceUsd: string; reservedUsd: string }[];
    expect(listed.find((u) => u.email === email)).toMatchObject({ balanceUsd: "0.123456789", reservedUsd: "0.000000000" });
    expect((await cli("users", "list")).stdout).toContain("0.123456789");
  });

  test("credits grant answers the balance exactly, as credits show does", async () => {
    const email = uniqueEmail("grant");
    await cliJson("users", "create", "--email", email, "--credits", "1.000000004");
    const granted = await cliJson("credits", "grant", "--email", email, "--usd", "0.000000001");
    expect(granted).toMatchObject({ amountUsd: "0.000000001", balanceUsd: "1.000000005" });
    expect((await cliJson("credits", "show", "--email", email)).balanceUsd).toBe("1.000000005");
    const text = await cli("credits", "grant", "--email", email, "--usd", "0.000000002");
    expect(text.stdout.trim()).toBe(`grant of 0.000000002 USD to ${email}; balance 1.000000007 USD`);
  });

  test("keys list shows limits and spend to 9 places, in text and JSON", async () => {
    const email = uniqueEmail("keys");
    await cliJson("users", "create", "--email", email);
    const key = await cliJson("keys", "create", "--email", email, "--credit-limit", "1.123456", "--usd-per-hour", "0.25");
    const [listed] = await cliJson("keys", "list", "--email", email);
    expect(listed).toMatchObject({ id: key.id, creditLimitUsd: "1.123456000", rateLimitUsdPerHour: "0.250000000", total_spend_usd: "0.000000000" });
    const table = (await cli("keys", "list", "--email", email)).stdout;
    for (const amount of ["1.123456000", "0.250000000", "0.000000000"]) expect(table).toContain(amount);
  });

  test("models list shows prices to 9 places, in text and JSON", async () => {
    const [model] = await cliJson("models", "list");
    expect(model.inputPerMillionUsd).toMatch(/^\d+\.\d{9}$/);
    expect(model.outputPerMillionUsd).toMatch(/^\d+\.\d{9}$/);
    expect((await cli("models", "list")).stdout).toMatch(/\d+\.\d{9}/);
  });
});
