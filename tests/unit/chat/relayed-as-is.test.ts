import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { relayedAsIs, relayedReadAsIs } from "../../../src/core/chat/relayed-as-is.ts";
import { readChunk } from "../../../src/core/chat/response.ts";
import { model } from "./fakes.ts";

const gpt41 = model("gpt-4.1");
const fixtures = new URL("../../fixtures/providers/", import.meta.url).pathname;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe("relayedAsIs: a chunk that only needs its model said again", () => {
  /** What the relay sends for `data` when it parses it: readChunk's chunk, stringified. */
  const parsedWay = (data: string) => {
    const { chunk, usage, final } = readChunk(JSON.parse(data), gpt41);
    return chunk && !usage && !final ? JSON.stringify(chunk) : null;
  };

  test.each(readdirSync(fixtures).filter((name) => !name.includes(".")))("on every chunk of %s's documented stream it answers what parsing would, or defers", (provider) => {
    const payloads = readFileSync(`${fixtures}${provider}/stream.sse`, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
      .map((line) => line.slice(6));
    let fast = 0;
    for (const data of payloads) {
      const asIs = relayedAsIs(data, gpt41);
      if (asIs === null) continue;
      fast++;
      expect(JSON.stringify(JSON.parse(asIs))).toBe(parsedWay(data) as string);
    }
    // Each documented stream has content chunks between its first and its final one.
    expect(fast).toBeGreaterThan(0);
  });

  const middle = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}';
  test("rewrites the model in place and drops OpenAI's usage:null", () => {
    expect(relayedAsIs(middle, gpt41)).toBe(middle.replace("gpt-4.1-2025", "gpt-4.1"));
    const withNullUsage = middle.replace("]}", '],"usage":null}');
    expect(relayedAsIs(withNullUsage, gpt41)).toBe(middle.replace("gpt-4.1-2025", "gpt-4.1"));
  });

  test.each([
    ["a finish_reason", middle.replace('"finish_reason":null', '"finish_reason":"stop"')],
    ["a finish_reason written with a space", middle.replace('"finish_reason":null', '"finish_reason": "stop"')],
    ["usage", middle.replace("]}", '],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}')],
    ["usage inside the choice (Moonshot)", middle.replace('"finish_reason":null', '"finish_reason":null,"usage":{"prompt_tokens":1}')],
    ["no choices", middle.replace(/"choices":\[.*\]/, '"choices":[]')],
    ["another object type", middle.replace("chat.completion.chunk", "chat.completion")],
    ["a second model key", middle.replace('"delta":{', '"delta":{"model":"x",')],
    ["an escaped model value", middle.replace("gpt-4.1-2025", 'gpt\\"4')],
    ["an error event", '{"error":{"message":"overloaded","type":"server_error"}}'],
  ])("defers to parsing a chunk with %s", (_, data) => {
    expect(relayedAsIs(data, gpt41)).toBeNull();
  });

  test("a model value that mentions usage inside a string does not fool it", () => {
    const quoted = middle.replace('"content":"hi"', '"content":"say \\"usage\\":{} and \\"finish_reason\\":\\"stop\\""');
    expect(JSON.stringify(JSON.parse(relayedAsIs(quoted, gpt41) as string))).toBe(parsedWay(quoted) as string);
  });
});

describe("relayedReadAsIs: a read of whole events passed on as bytes", () => {
  const middle = (content: string) =>
    `{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}],"usage":null}`;
  const events = (...payloads: string[]) => payloads.map((p) => `data: ${p}\n\n`).join("");
  const read = (...payloads: string[]) => encoder.encode(events(...payloads));
  const asIs = (bytes: Uint8Array) => {
    const out = relayedReadAsIs(bytes, gpt41);
    return { text: decoder.decode(out.bytes), events: out.events, whole: out.end === bytes.length };
  };

  test("rewrites each of its events as relayedAsIs does, in one piece", () => {
    const payloads = [middle("Hel"), middle("lo"), middle(" ünï 🎉")];
    expect(asIs(read(...payloads))).toEqual({ text: events(...payloads.map((p) => relayedAsIs(p, gpt41) as string)), events: 3, whole: true });
  });

  test("a read of many events is written whole, and a shorter one after it too", () => {
    const long = Array.from({ length: 200 }, (_, i) => middle(`part ${i}`));
    expect(encoder.encode(events(...long)).length).toBeGreaterThan(16 * 1024);
    expect(asIs(read(...long))).toEqual({ text: events(...long.map((p) => relayedAsIs(p, gpt41) as string)), events: 200, whole: true });
    expect(asIs(read(middle("short")))).toEqual({ text: events(relayedAsIs(middle("short"), gpt41) as string), events: 1, whole: true });
  });

  test("judges each event of a read on its own, whatever the events before and after it hold", () => {
    // A read is searched once per needle, not once per event (`Needle`): events that lack a key
    // sit between events that have it, and a backslash or a usage comes only later in the read.
    const withoutNullUsage = (content: string) => middle(content).replace(',"usage":null', "");
    const quoted = middle('say \\"hi\\"');
    const passed = [withoutNullUsage("a"), middle("b"), quoted, withoutNullUsage("c"), withoutNullUsage("d"), middle("e")];
    const escapedModel = middle("f").replace("gpt-4.1-2025", 'gpt\\"4');
    const withUsage = withoutNullUsage("g").replace("]}", '],"usage":{"prompt_tokens":1}}');
    for (const stop of [escapedModel, withUsage]) {
      expect(asIs(read(...passed, stop, middle("h")))).toEqual({
        text: events(...passed.map((p) => relayedAsIs(p, gpt41) as string)), events: passed.length, whole: false,
      });
    }
    expect(passed.every((p) => relayedAsIs(p, gpt41) !== null)).toBe(true);
    expect(asIs(read(...passed)).events).toBe(passed.length);
  });

  test("a read larger than the buffer keeps gets bytes of its own, and the buffer stays at its size", () => {
    const huge = Array.from({ length: 1000 }, (_, i) => middle(`part ${i}`));
    const out = relayedReadAsIs(read(...huge), gpt41);
    expect(out.bytes.length).toBeGreaterThan(64 * 1024);
    const text = events(...huge.map((p) => relayedAsIs(p, gpt41) as string));
    const after = relayedReadAsIs(read(middle("short")), gpt41);
    // The huge read's bytes were not the buffer the next call wrote into, and that buffer did not grow to hold them.
    expect(decoder.decode(out.bytes)).toBe(text);
    expect(after.bytes.buffer.byteLength).toBeLessThanOrEqual(64 * 1024);
  });

  test.each([
    ["[DONE]", "[DONE]"],
    ["a final chunk", middle("b").replace('"finish_reason":null', '"finish_reason":"stop"')],
    ["a chunk with usage", middle("b").replace('"usage":null', '"usage":{"prompt_tokens":1}')],
  ])("passes on the events before %s, and leaves it and those after it to parsing", (_, payload) => {
    const head = [middle("a"), middle("z")];
    expect(asIs(read(...head, payload, middle("c")))).toEqual({ text: events(...head.map((p) => relayedAsIs(p, gpt41) as string)), events: 2, whole: false });
    expect(asIs(read(payload))).toEqual({ text: "", events: 0, whole: false });
  });

  test.each([
    ["a comment", `: keep-alive\n\n${events(middle("a"))}`],
    ["an event of two data lines", `data: ${middle("a")}\ndata: ${middle("b")}\n\n`],
    ["an event with another field", `event: delta\ndata: ${middle("a")}\n\n`],
    ["data without a space", `data:${middle("a")}\n\n`],
    ["an event not ended", `data: ${middle("a")}\n`],
  ])("leaves to parsing a read that begins with %s", (_, text) => {
    expect(asIs(encoder.encode(text))).toEqual({ text: "", events: 0, whole: false });
  });
});
