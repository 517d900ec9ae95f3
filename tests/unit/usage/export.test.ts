import { expect, test } from "bun:test";
import { nanos } from "../../../src/core/money.ts";
import type { UsageCursor, UsageExportRow, UsageExportStore } from "../../../src/core/usage/export.ts";
import { usageCsv, usageCsvFilename, usageCsvRecord, usageJson } from "../../../src/core/usage/export.ts";

const HEADER = "date,model,requested_model,prompt_tokens,completion_tokens,cost_usd,latency_ms,status\r\n";

const log = (n: number): UsageExportRow => ({
  id: `id-${String(n).padStart(5, "0")}`,
  createdAt: 1_800_000_000_000 - n * 1000,
  model: "gpt-5.4-mini",
  requestedModel: "gpt-5.4-mini",
  promptTokens: n,
  completionTokens: 2 * n,
  cost: nanos(n),
  latencyMs: 100 + n,
  status: "success",
  cachedTokens: 0,
  saved: nanos(0),
  keyName: "Production backend",
  memberEmail: null,
});

/** A store holding `count` logs, newest first, that records the pages asked for. */
function fakeStore(count: number) {
  const logs = Array.from({ length: count }, (_, n) => log(n));
  const asked: { after: UsageCursor | null; limit: number }[] = [];
  const store: UsageExportStore = {
    usageLogPage: async (_accountId, after, limit) => {
      asked.push({ after, limit });
      const start = after === null ? 0 : logs.findIndex((l) => l.id === after.id) + 1;
      return logs.slice(start, start + limit);
    },
  };
  return { store, asked };
}

const collect = async (chunks: AsyncGenerator<string>) => {
  const out: string[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
};

test("a record has the ISO date, exact 9-decimal cost and integer latency", () => {
  expect(usageCsvRecord({ ...log(0), createdAt: Date.UTC(2026, 0, 2, 3, 4, 5, 6), cost: nanos(1_234_567_891n), latencyMs: 850 })).toBe(
    "2026-01-02T03:04:05.006Z,gpt-5.4-mini,gpt-5.4-mini,0,0,1.234567891,850,success\r\n",
  );
  expect(usageCsvRecord({ ...log(1), requestedModel: 'odd,"name"', status: "error", cost: nanos(0) })).toEndWith(
    ',"odd,""name""",1,2,0.000000000,101,error\r\n',
  );
});

test("the filename carries the UTC date", () => {
  expect(usageCsvFilename(Date.UTC(2026, 11, 31, 23, 59, 59))).toBe("gateway-usage-2026-12-31.csv");
});

test("no logs is the header alone", async () => {
  expect(await collect(usageCsv(fakeStore(0).store, "a"))).toEqual([HEADER]);
});

test("logs come page by page, newest first, each page starting after the last", async () => {
  const { store, asked } = fakeStore(450);
  const chunks = await collect(usageCsv(store, "a"));
  expect(chunks).toHaveLength(3);
  expect(chunks.join("")).toBe(HEADER + Array.from({ length: 450 }, (_, n) => usageCsvRecord(log(n))).join(""));
  expect(asked).toEqual([
    { after: null, limit: 200 },
    { after: { createdAt: log(199).createdAt, id: log(199).id }, limit: 200 },
    { after: { createdAt: log(399).createdAt, id: log(399).id }, limit: 200 },
  ]);
});

test("stops at the latest 1,000 logs, without asking for more", async () => {
  const { store, asked } = fakeStore(1_234);
  const text = (await collect(usageCsv(store, "a"))).join("");
  expect(text.split("\r\n").filter(Boolean)).toHaveLength(1 + 1_000);
  expect(text).toContain(usageCsvRecord(log(999)));
  expect(text).not.toContain(usageCsvRecord(log(1_000)));
  expect(asked.map((a) => a.limit)).toEqual([200, 200, 200, 200, 200]);
});

test("reads the first page before yielding anything, so a failing query fails the first step", async () => {
  const failing: UsageExportStore = { usageLogPage: async () => { throw new Error("db down"); } };
  await expect(usageCsv(failing, "a").next()).rejects.toThrow("db down");
});

test("with no cap every log is read, a page at a time", async () => {
  const { store, asked } = fakeStore(1_201);
  const text = (await collect(usageCsv(store, "a", { limit: Number.POSITIVE_INFINITY }))).join("");
  expect(text.split("\r\n").length - 2).toBe(1_201);
  expect(Math.max(...asked.map((a) => a.limit))).toBe(200);
});

test("the JSON export is one array of records under the HTTP API's names, streamed by page", async () => {
  const { store } = fakeStore(401);
  const chunks = await collect(usageJson(store, "a", { limit: Number.POSITIVE_INFINITY }));
  expect(chunks.length).toBeGreaterThan(2);
  const records = JSON.parse(chunks.join(""));
  expect(records).toHaveLength(401);
  expect(records[1]).toEqual({
    id: "id-00001", createdAt: new Date(1_800_000_000_000 - 1000).toISOString(), model: "gpt-5.4-mini", requestedModel: "gpt-5.4-mini",
    promptTokens: 1, completionTokens: 2, cachedTokens: 0, costUsd: "0.000000001", savedUsd: "0.000000000", latencyMs: 101, status: "success",
  });
  expect(JSON.parse((await collect(usageJson(fakeStore(0).store, "a"))).join(""))).toEqual([]);
});

test("an organization's export names the member and the key after the spec's columns", async () => {
  const store: UsageExportStore = {
    usageLogPage: async (_accountId, after) => (after === null ? [
      { ...log(1), memberEmail: "ana@example.com", keyName: "Production backend" },
      { ...log(2), memberEmail: null, keyName: "=HYPERLINK(\"http://x\")" },
    ] : []),
  };
  const [chunk] = await collect(usageCsv(store, "org", { kind: "organization" }));
  const lines = chunk!.split("\r\n");
  expect(lines[0]).toBe(`${HEADER.trimEnd()},member,key`);
  expect(lines[1]).toEndWith(",success,ana@example.com,Production backend");
  // A name a member chose cannot become a formula in the owner's spreadsheet.
  expect(lines[2]).toEndWith(',success,,"\'=HYPERLINK(""http://x"")"');
  expect(usageCsvRecord(log(1))).not.toContain("Production backend");
});
