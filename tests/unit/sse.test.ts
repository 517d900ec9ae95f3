import { describe, expect, test } from "bun:test";
import { sseReads } from "../../src/server/providers/sse.ts";

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
  for await (const read of sseReads(stream, limit)) out.push(...read.events);
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

describe("sseReads", () => {
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
    for await (const read of sseReads(body("data: a\n\ndata: b\n\ndata: c\n\n", [18]), 100)) reads.push([...read.events]);
    expect(reads).toEqual([["a", "b"], ["c"]]);
  });

  test("yields a last event that the body ends without a blank line after", async () => {
    expect(await collect(body("data: one\n\ndata: two\n"))).toEqual(["one", "two"]);
  });

  test("throws once a line grows past the limit without ending", async () => {
    await expect(collect(body(`data: ${"x".repeat(200)}`, [50, 100, 150]), 100)).rejects.toThrow("passed 100 characters");
  });

  test("hands over the bytes of a read that held whole events only, decoding its events only when asked", async () => {
    const whole = 'data: {"a":1}\n\ndata: {"b":2}\n\n';
    const reads = [];
    const pieces = [whole, 'data: {"c"', ":3}\n\n", whole];
    const cuts = [1, 2, 3].map((n) => pieces.slice(0, n).join("").length);
    for await (const read of sseReads(body(pieces.join(""), cuts), 100)) {
      reads.push({ bytes: read.bytes ? new TextDecoder().decode(read.bytes) : null, events: [...read.events] });
    }
    expect(reads).toEqual([
      { bytes: whole, events: ['{"a":1}', '{"b":2}'] },
      // A read that ends an event begun in the read before is parsed as text.
      { bytes: null, events: ['{"c":3}'] },
      { bytes: whole, events: ['{"a":1}', '{"b":2}'] },
    ]);
  });

  test.each([
    ["a carriage return", 'data: {"a":1}\r\n\r\n'],
    ["no blank line at its end", 'data: {"a":1}\n'],
  ])("does not hand over the bytes of a read with %s", async (_, text) => {
    for await (const read of sseReads(body(text), 100)) expect(read.bytes).toBeUndefined();
  });

  test("does not hand over the bytes of a read that begins inside a character the read before began", async () => {
    const bytes = encoder.encode('data: {"a":1}\n\né: x\n\n');
    const split = bytes.indexOf(0xc3) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, split));
        controller.enqueue(bytes.slice(split));
        controller.close();
      },
    });
    const reads = [];
    for await (const read of sseReads(stream, 100)) reads.push({ whole: read.bytes !== undefined, events: [...read.events] });
    expect(reads).toEqual([{ whole: false, events: ['{"a":1}'] }]);
  });
});
