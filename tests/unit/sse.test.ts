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

/** Passes a body on, then sends each of `texts` as one more read. */
const appending = (...texts: string[]) =>
  new TransformStream<Uint8Array, Uint8Array>({
    flush(controller) {
      for (const text of texts) controller.enqueue(encoder.encode(text));
    },
  });

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

  test("hands over the bytes of each read's whole events, decoding them only when asked", async () => {
    const whole = 'data: {"a":1}\n\ndata: {"b":2}\n\n';
    const pieces = [whole, 'data: {"c"', ':3}\n\ndata: {"d":4}\n', '\ndata: {"e"', ":5}\n\n"];
    const cuts = [1, 2, 3, 4].map((n) => pieces.slice(0, n).join("").length);
    const reads = [];
    for await (const read of sseReads(body(pieces.join(""), cuts), 100)) {
      reads.push({ bytes: read.bytes ? new TextDecoder().decode(read.bytes) : null, events: [...read.events] });
    }
    expect(reads).toEqual([
      { bytes: whole, events: ['{"a":1}', '{"b":2}'] },
      // An event begun in one read goes with the read that ends it, even by its blank line alone.
      { bytes: 'data: {"c":3}\n\n', events: ['{"c":3}'] },
      { bytes: 'data: {"d":4}\n\n', events: ['{"d":4}'] },
      { bytes: 'data: {"e":5}\n\n', events: ['{"e":5}'] },
    ]);
  });

  test("decodes a whole read's events from the byte where one begins, as its events from there", async () => {
    const payloads = ['{"a":"ünï"}', '{"b":"🎉"}', "[DONE]"];
    const text = payloads.map((p) => `data: ${p}\n\n`).join("");
    const [read] = await Array.fromAsync(sseReads(body(text), 100));
    if (!read?.bytes) throw new Error("a read of whole events has its bytes");
    const starts = [0, ...payloads.slice(0, -1).map((_, i) => encoder.encode(payloads.slice(0, i + 1).map((p) => `data: ${p}\n\n`).join("")).length)];
    expect(starts.map((at) => read.eventsFrom(at))).toEqual([payloads, payloads.slice(1), payloads.slice(2)]);
  });

  test.each([
    ["a carriage return", 'data: {"a":1}\r\n\r\n'],
    ["no blank line at its end", 'data: {"a":1}\n'],
  ])("does not hand over the bytes of a read with %s", async (_, text) => {
    for await (const read of sseReads(body(text), 100)) expect(read.bytes).toBeUndefined();
  });

  test("hands over whole characters only: one cut inside a character goes with the read that ends its event", async () => {
    const bytes = encoder.encode('data: {"a":1}\n\ndata: é\n\n');
    const split = bytes.indexOf(0xc3) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, split));
        controller.enqueue(bytes.slice(split));
        controller.close();
      },
    });
    const reads = [];
    for await (const read of sseReads(stream, 100)) reads.push({ bytes: new TextDecoder("utf-8", { fatal: true }).decode(read.bytes), events: [...read.events] });
    expect(reads).toEqual([
      { bytes: 'data: {"a":1}\n\n', events: ['{"a":1}'] },
      { bytes: "data: é\n\n", events: ["é"] },
    ]);
  });

  test("a read with a carriage return turns the rest of the stream to text, keeping what was pending", async () => {
    const reads = [];
    for await (const read of sseReads(body('data: {"a":1}\n\ndata: {"b"', [20]).pipeThrough(appending(':2}\r\n\r\n', 'data: {"c":3}\n\n')), 100)) {
      reads.push({ whole: read.bytes !== undefined, events: [...read.events] });
    }
    expect(reads).toEqual([
      { whole: true, events: ['{"a":1}'] },
      { whole: false, events: ['{"b":2}'] },
      { whole: false, events: ['{"c":3}'] },
    ]);
  });
});
