// The dashboard's one rule for money: toward zero (a balance is never shown higher than it is),
// to the cent or to three significant digits, whichever shows more (at most the API's 9 decimals).
import { expect, test } from "bun:test";
import { usd, usdExact } from "../../../src/server/dashboard/client/format.ts";

test.each([
  ["4.999838", "$4.99"],
  ["4.999999999", "$4.99"],
  ["5.000000", "$5.00"],
  ["19.937044", "$19.93"],
  ["1250.5", "$1,250.50"],
  ["0.5", "$0.50"],
  ["0.125", "$0.125"],
  ["0.0375", "$0.0375"],
  ["0.062956130", "$0.0629"],
  ["0.000003900", "$0.0000039"],
  ["0.000000600", "$0.0000006"],
  ["0.000000004", "$0.000000004"],
  ["0", "$0.00"],
  ["0.000000000", "$0.00"],
  ["-2.449", "-$2.44"],
  ["-0.000000004", "-$0.000000004"],
])("%s reads %s", (amount, shown) => {
  expect(usd(amount)).toBe(shown);
});

test.each([
  ["4.999838", "$4.999838"],
  ["0.000003900", "$0.000003900"],
  ["-1250.5", "-$1,250.50"],
])("the exact figure %s reads %s, every digit the API gave", (amount, shown) => {
  expect(usdExact(amount)).toBe(shown);
});
