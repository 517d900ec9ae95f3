import { expect, test } from "bun:test";
import { THROTTLED, waitText } from "../../../src/core/accounts/sign-in-limits.ts";

test.each([
  [1, "1 minute"],
  [60, "1 minute"],
  [61, "2 minutes"],
  [900, "15 minutes"],
])("a wait of %p seconds is named as %p, rounded up as Retry-After is", (seconds, text) => {
  expect(waitText(seconds)).toBe(text);
});

test.each([
  [THROTTLED.address("login", 600), "Too many failed sign-in attempts from this address. Try again in 10 minutes."],
  [THROTTLED.pair("login-code", 30), "Too many failed two-factor codes for this e-mail from this address. Try again in 1 minute."],
  [THROTTLED.work(59), "Too many sign-in requests from this address. Try again in 1 minute."],
])("the 429 says which limit and how long: %p", (message, expected) => {
  expect(message).toBe(expected);
});
