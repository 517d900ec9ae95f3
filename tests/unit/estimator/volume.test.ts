import { describe, expect, test } from "bun:test";
import { FALLBACK_CATALOG } from "../../../src/core/catalog.ts";
import { estimateUsage } from "../../../src/core/estimator/estimate.ts";
import { renderEstimate } from "../../../src/core/estimator/text.ts";
import { DEFAULT_REQUESTS_PER_DAY, readVolume } from "../../../src/core/estimator/volume.ts";

// Volumes as customers write them, with the requests a day a person reading the sentence would
// work out. The estimate must land within 10% of it.
const PHRASINGS: [string, number][] = [
  ["2,000 conversations a day, each around 6 messages of 150 words", 12_000],
  ["40 developers, 200 requests each per day", 8_000],
  ["500 users, 20 messages a day", 10_000],
  ["10k documents per day", 10_000],
  ["about 300 support tickets a week, ~4 replies each", 1_200 / 7],
  ["a team of 12 engineers using it all day for code review, maybe 50 requests each", 600],
  ["we process 1.2 million short texts per month", 40_000],
  ["5 requests per minute during business hours", 5 * 60 * 8],
  ["100 users", 1_000],
  ["single developer, a few hundred calls a day", 300],
  ["batch summarise 10k documents per day", 10_000],
  ["Our app has 1.5k daily active users who each send about 8 messages", 12_000],
  ["We're a 25-person startup; each employee might ask 30 questions a day", 750],
  ["roughly 50,000 API calls a month on GPT-4 today", 50_000 / 30],
  ["We have 3 million users but only 2% use the assistant, about 20k chats a day", 20_000],
  ["In 2024 we handled 90k support emails per year", 90_000 / 365],
  ["classify 2,000 invoices daily, budget is $200 a month", 2_000],
  ["around 150 requests an hour, around the clock", 3_600],
  ["We have 300 users and get 10k requests a day", 10_000],
  ["Each of our 80 agents handles 40 tickets a day", 3_200],
  ["4 million tokens a day across 1,000 requests", 1_000],
  ["just me, maybe a couple hundred prompts a day", 200],
  ["a dozen lawyers reviewing 15 contracts each per week", 180 / 7],
  ["10k documents a day, 20 pages each", 10_000],
  ["we expect 250 sessions per day with about 10 turns per session", 2_500],
  ["Around 20 requests per user per week, 3,000 users", 60_000 / 7],
  ["We're building a RAG app over 5,000 PDFs, about 400 queries a day", 400],
  ["We have 50 employees and handle 2,000 tickets a month", 2_000 / 30],
  ["one request every 10 seconds", 8_640],
  ["2k req/day", 2_000],
  ["a steady 500 RPM from our backend jobs", 500 * 1_440],
  ["1000 monthly active users, each sending 5 messages a day", 5_000],
  ["about 3 requests per session, 1,000 sessions a day", 3_000],
  ["a 5 person team, each using it 20 times a day", 100],
  ["50 requests each from 12 devs", 600],
  ["each of them sends 5 messages, we have 40 users", 200],
  ["2000 requests a day, launching in 2025", 2_000],
  ["a chatbot for our website, no idea about traffic yet", DEFAULT_REQUESTS_PER_DAY],
];

describe("volume as customers say it: within 10% of what a reader would work out", () => {
  test.each(PHRASINGS)("%p → %d a day", (text, intended) => {
    const { requestsPerDay } = readVolume(text).volume;
    expect(Math.abs(requestsPerDay - intended) / intended).toBeLessThanOrEqual(0.1);
  });
});

describe("the answer says what it assumed", () => {
  const line = (content: string) =>
    renderEstimate(estimateUsage([{ role: "user", content }], FALLBACK_CATALOG), "https://g.example/v1")
      .split("\n").find((l) => l.startsWith("Requests per day")) as string;

  test.each([
    ["2,000 conversations a day, each around 6 messages of 150 words",
      "Requests per day: 12,000 (assumed from 2,000 conversations × 6 messages a day)."],
    ["40 developers, 200 requests each per day", "Requests per day: 8,000 (assumed from 40 developers × 200 requests a day)."],
    ["about 300 support tickets a week, ~4 replies each", "Requests per day: 172 (assumed from 300 tickets × 4 replies a week)."],
    ["5 requests per minute during business hours",
      "Requests per day: 2,400 (assumed from 5 requests a minute over 8 business hours)."],
    ["10k documents per day", "Requests per day: 10,000 (from the volume you described)."],
    ["a chatbot for our website", "Requests per day: 1,000 (no volume was mentioned, so this is an assumption; the cost scales with it)."],
  ])("%p", (text, expected) => {
    expect(line(text)).toBe(expected);
  });
});

describe("numbers that are not volumes", () => {
  test.each([
    "150 words per message",
    "GPT-4 or Claude 3.5?",
    "we started in 2021",
    "budget $500 a month",
    "90% of answers should be short",
    "$5 per 1000 requests is our ceiling",
    "6 months of history, 20 pages long",
    "it answers 10 times faster than our old bot",
  ])("%p: no volume", (text) => {
    expect(readVolume(text).volume.basis).toBe("assumed");
  });
});
