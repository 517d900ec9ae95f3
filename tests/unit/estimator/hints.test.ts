import { describe, expect, test } from "bun:test";
import {
  DEFAULT_REQUESTS_PER_DAY, MAX_REQUESTS_PER_DAY, readUsageHints, REQUESTS_PER_USER_PER_DAY, type Volume,
} from "../../../src/core/estimator/hints.ts";

describe("daily volume from numbers near users, requests, messages, chats or calls", () => {
  test.each<[string, Volume]>([
    ["10k requests per day", { basis: "stated", requestsPerDay: 10_000 }],
    ["about 2,000 messages", { basis: "stated", requestsPerDay: 2_000 }],
    ["3000 chats daily", { basis: "stated", requestsPerDay: 3_000 }],
    ["1.5M API calls a month", { basis: "stated", requestsPerDay: 50_000 }],
    ["2 million calls per month", { basis: "stated", requestsPerDay: 66_667 }],
    ["700 requests a week", { basis: "stated", requestsPerDay: 100 }],
    ["100 requests per hour", { basis: "stated", requestsPerDay: 2_400 }],
    ["5 requests per minute", { basis: "stated", requestsPerDay: 7_200 }],
    ["2 requests per second", { basis: "stated", requestsPerDay: 172_800 }],
    ["36,500 requests a year", { basis: "stated", requestsPerDay: 100 }],
    ["1.1k chats", { basis: "stated", requestsPerDay: 1_100 }],
    ["requests per day: 4,500", { basis: "stated", requestsPerDay: 4_500 }],
    ["10K REQUESTS", { basis: "stated", requestsPerDay: 10_000 }],
    ["500 users", { basis: "users", users: 500, requestsPerDay: 500 * REQUESTS_PER_USER_PER_DAY }],
    ["500 daily active users", { basis: "users", users: 500, requestsPerDay: 5_000 }],
    ["users: 800", { basis: "users", users: 800, requestsPerDay: 8_000 }],
    ["2k users", { basis: "users", users: 2_000, requestsPerDay: 20_000 }],
    ["500 users sending 20 messages a day each", { basis: "stated", requestsPerDay: 10_000 }],
    ["300 users, 15 chats per user per day", { basis: "stated", requestsPerDay: 4_500 }],
    ["10k requests each day from 300 users", { basis: "stated", requestsPerDay: 10_000 }],
    ["2,000 messages a day. Later 9,000 messages a day.", { basis: "stated", requestsPerDay: 9_000 }],
    ["0 requests", { basis: "stated", requestsPerDay: 1 }],
    ["999999999999 requests per second", { basis: "stated", requestsPerDay: MAX_REQUESTS_PER_DAY }],
    ["a support bot", { basis: "assumed", requestsPerDay: DEFAULT_REQUESTS_PER_DAY }],
    ["we sell 500 products", { basis: "assumed", requestsPerDay: DEFAULT_REQUESTS_PER_DAY }],
    ["500 of our best and brightest users", { basis: "assumed", requestsPerDay: DEFAULT_REQUESTS_PER_DAY }],
    ["500. Users are happy", { basis: "assumed", requestsPerDay: DEFAULT_REQUESTS_PER_DAY }],
  ])("%p", (text, volume) => {
    expect(readUsageHints(text).volume).toEqual(volume);
  });
});

describe("keyword hints", () => {
  const none = { code: false, documents: false, extraction: false, cheap: false, reasoning: false, repeatedPrompt: false };
  test.each<[string, Partial<typeof none>]>([
    ["a code review assistant", { code: true }],
    ["coding help in the IDE", { code: true }],
    ["summarise legal documents", { documents: true }],
    ["sentiment analysis of reviews", { documents: true }],
    ["analyze support tickets", { documents: true }],
    ["invoice field extraction", { extraction: true }],
    ["extract names from e-mails", { extraction: true }],
    ["the cheapest option", { cheap: true }],
    ["a high-volume classifier", { cheap: true }],
    ["high volume traffic", { cheap: true }],
    ["a low-cost summariser", { cheap: true }],
    ["step-by-step reasoning", { reasoning: true }],
    ["complex multi-step tasks", { reasoning: true }],
    ["extract data from documents with complex code, cheap", { code: true, documents: true, extraction: true, cheap: true, reasoning: true }],
    ["a coding agent", { code: true, repeatedPrompt: true }],
    ["a chatbot with a long system prompt", { repeatedPrompt: true }],
    ["every call sends the same instructions", { repeatedPrompt: true }],
    ["developers using Claude Code", { code: true, repeatedPrompt: true }],
    ["we cache the context", { repeatedPrompt: true }],
    ["a reasonable postcode lookup", {}],
    ["hello", {}],
  ])("%p", (text, flags) => {
    const { volume: _, ...found } = readUsageHints(text);
    expect(found).toEqual({ ...none, ...flags });
  });
});
