import { describe, expect, test } from "bun:test";
import { sseData } from "../../src/server/providers/sse.ts";

const encoder = new TextEncoder();

/** A body that delivers `text` cut at the given byte offsets. */
function body(text: string, cuts: number[] = []): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  const bounds = [0, ...cuts, bytes.length];
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bounds.length - 1; i++) controller.enqueue(bytes.slice(bounds[i], bounds[i + 1]));
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>, limit = 1_000_000): Promise<string[]> {
  const out: string[] = [];
  for await (const read of sseData(stream, limit)) out.push(...read);
  return out;
}

const STREAM = [
  ": a comment line\n",
  'data: {"a":1}\n\n',
  'data:{"no":"space"}\r\n\r\n',
  "event: message\nid: 7\ndata: first line\ndata: second line\n\n",
  "retry: 100\n\n",
  'data: {"text":"é ü — 🎉"}\n\n',
  "data: [DONE]\n\n",
].join("");
const EXPECTED = ['{"a":1}', '{"no":"space"}', "first line\nsecond line", '{"text":"é ü — 🎉"}', "[DONE]"];

describe("sseData", () => {
  test("yields each event's data, joining its data lines and skipping comments and other fields", async () => {
    expect(await collect(body(STREAM))).toEqual(EXPECTED);
  });

  test("gives the same events however the body is cut into chunks, inside lines and characters included", async () => {
    const length = encoder.encode(STREAM).length;
    for (let cut = 1; cut < length; cut++) expect(await collect(body(STREAM, [cut]))).toEqual(EXPECTED);
    expect(await collect(body(STREAM, Array.from({ length: length - 1 }, (_, i) => i + 1)))).toEqual(EXPECTED);
  });

  test("yields per read of the body the events that read completed, so that what arrived together goes on together", async () => {
    const reads: string[][] = [];
    for await (const read of sseData(body("data: a\n\ndata: b\n\ndata: c\n\n", [18]), 100)) reads.push(read);
    expect(reads).toEqual([["a", "b"], ["c"]]);
  });

  test("yields a last event that the body ends without a blank line after", async () => {
    expect(await collect(body("data: one\n\ndata: two\n"))).toEqual(["one", "two"]);
  });

  test("throws once a line grows past the limit without ending", async () => {
    await expect(collect(body(`data: ${"x".repeat(200)}`, [50, 100, 150]), 100)).rejects.toThrow("passed 100 characters");
  });
});
