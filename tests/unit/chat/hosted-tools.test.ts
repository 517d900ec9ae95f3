// Provider-run tools sold per call: what is reserved, which output items are calls, what they cost.
import { expect, test } from "bun:test";
import { hostedCalls, hostedCost, hostedReserve } from "../../../src/core/chat/hosted-tools.ts";
import { nanos } from "../../../src/core/money.ts";

const tools = { prices: new Map([["web_search", nanos(10_000_000)], ["file_search", nanos(2_500_000)]]), maxCalls: 4 };

test("the reservation holds the dearest sold tool's price for every call allowed; none without tools", () => {
  expect(hostedReserve(tools)).toBe(nanos(40_000_000));
  expect(hostedReserve(undefined)).toBe(nanos(0));
});

test("calls are the output items of provider-run tools, by tool; the client's own calls are not", () => {
  const output = [
    { type: "web_search_call" }, { type: "message" }, { type: "web_search_call" }, { type: "function_call" },
    { type: "custom_tool_call" }, { type: "computer_call" }, { type: "file_search_call" }, null, "x",
  ];
  expect(hostedCalls(output)).toEqual({ web_search: 2, computer_use: 1, file_search: 1 });
  expect(hostedCalls([{ type: "message" }])).toBeUndefined();
  expect(hostedCalls(undefined)).toBeUndefined();
});

test("each sold tool's calls at its price, unsold ones free, never more calls than allowed", () => {
  expect(hostedCost({ web_search: 2, computer_use: 9 }, tools)).toBe(nanos(20_000_000));
  expect(hostedCost({ web_search: 3, file_search: 3 }, tools)).toBe(nanos(30_000_000 + 2_500_000));
  expect(hostedCost(undefined, tools)).toBe(nanos(0));
  expect(hostedCost({ web_search: 1 }, undefined)).toBe(nanos(0));
});
