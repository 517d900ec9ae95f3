// The relay's fast path: a provider chunk passed on as the bytes it came as, but for its model.
import type { Model } from "../catalog.ts";

const ascii = (text: string) => Buffer.from(text, "latin1");
const OBJECT_CHUNK = ascii('"object":"chat.completion.chunk"');
const CHOICES = ascii('"choices":[{');
const FINISH = ascii('"finish_reason"');
const NULL_AFTER = ascii(":null");
const USAGE = ascii('"usage"');
const NULL_USAGE = ascii(',"usage":null');
const MODEL = ascii('"model":"');
const DATA = ascii("data: ");
const EVENT_END = ascii("\n\n");
const [QUOTE, BACKSLASH, LF, OPEN_BRACE] = [34, 92, 10, 123];

// The public ID as it sits between quotes in JSON, per model ID (the catalog's few).
const idBytes = new Map<string, Buffer>();
const quotedId = (model: Model): Buffer => {
  let bytes = idBytes.get(model.id);
  if (!bytes) idBytes.set(model.id, (bytes = Buffer.from(JSON.stringify(model.id).slice(1, -1))));
  return bytes;
};

const startsWith = (b: Buffer, prefix: Buffer, at: number): boolean =>
  at >= 0 && at + prefix.length <= b.length && b.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;

/**
 * Pushes onto `pieces` the chunk in `b` from `start` to `end` as the client gets it, when all it
 * needs is its `model` said again (and OpenAI's `"usage":null` dropped): it has choices, no
 * usage, no finish_reason yet, and `object` is already the spec's. False when it needs
 * `readChunk`. Searching the text is sound because a quote inside a JSON string is always
 * escaped: `"usage"` or `"model":"` can only be found where they are keys.
 */
function chunkAsIs(b: Buffer, start: number, end: number, model: Model, pieces: Uint8Array[]): boolean {
  const find = (needle: Buffer | number, from = start): number => {
    const at = b.indexOf(needle, from);
    return at < end ? at : -1;
  };
  if (find(OBJECT_CHUNK) < 0 || find(CHOICES) < 0) return false;
  for (let at = find(FINISH); at >= 0; at = find(FINISH, at + FINISH.length)) {
    if (!startsWith(b, NULL_AFTER, at + FINISH.length)) return false;
  }
  const usage = find(USAGE);
  if (usage >= 0 && (!startsWith(b, NULL_USAGE, usage - 1) || find(USAGE, usage + 1) >= 0)) return false;
  const key = find(MODEL);
  if (key < 0 || find(MODEL, key + 1) >= 0) return false;
  const valueStart = key + MODEL.length;
  const valueEnd = find(QUOTE, valueStart);
  const escape = find(BACKSLASH, valueStart);
  if (valueEnd < 0 || (escape >= 0 && escape < valueEnd)) return false;
  // What is kept, in order: around the model's value, and around `,"usage":null` if any.
  const cuts: [number, number, Buffer | null][] = [[valueStart, valueEnd, quotedId(model)]];
  if (usage >= 0) cuts.push([usage - 1, usage - 1 + NULL_USAGE.length, null]);
  cuts.sort((x, y) => x[0] - y[0]);
  let from = start;
  for (const [cutStart, cutEnd, instead] of cuts) {
    pieces.push(b.subarray(from, cutStart));
    if (instead) pieces.push(instead);
    from = cutEnd;
  }
  pieces.push(b.subarray(from, end));
  return true;
}

/** The events at the head of a read that `relayedReadAsIs` passed on: their bytes, and how many. */
export interface AsIs {
  bytes: Uint8Array;
  events: number;
  /** They are the whole read. */
  whole: boolean;
}

/**
 * The events of a read of whole events (`StreamRead.bytes`) as the client gets them, from the
 * first up to one that needs `readChunk`: each is one `data: ` line holding a chunk that
 * `chunkAsIs` can pass on. The relay parses the rest. Most reads of a stream are all such, and
 * neither decoding them nor parsing and stringifying their JSON was most of the relay's cost
 * and garbage per chunk.
 */
export function relayedReadAsIs(read: Uint8Array, model: Model): AsIs {
  const b = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
  const pieces: Uint8Array[] = [];
  let events = 0;
  let at = 0;
  while (at < b.length) {
    const end = b.indexOf(EVENT_END, at);
    const start = at + DATA.length;
    // One `data: ` line, holding a JSON object (so not `[DONE]`).
    if (end < 0 || !startsWith(b, DATA, at) || b[start] !== OPEN_BRACE || b.indexOf(LF, start) !== end) break;
    const kept = pieces.length;
    pieces.push(DATA);
    if (!chunkAsIs(b, start, end, model, pieces)) {
      pieces.length = kept;
      break;
    }
    pieces.push(EVENT_END);
    events++;
    at = end + EVENT_END.length;
  }
  return { bytes: Buffer.concat(pieces), events, whole: events > 0 && at === b.length };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One event's `data:` payload as the client gets it (see `relayedReadAsIs`), or null when it needs `readChunk`. */
export function relayedAsIs(data: string, model: Model): string | null {
  const asIs = relayedReadAsIs(encoder.encode(`data: ${data}\n\n`), model);
  return asIs.whole ? decoder.decode(asIs.bytes.subarray(DATA.length, asIs.bytes.length - EVENT_END.length)) : null;
}
