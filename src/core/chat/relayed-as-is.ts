// The relay's fast path: a provider chunk passed on as the bytes it came as, but for its model.
import type { Model } from "../catalog.ts";

const ascii = (text: string) => new TextEncoder().encode(text);

/**
 * What `chunkAsIs` searches a read for, and where it was found last: searching from `from`, at
 * `at` (-1: nowhere after `from`). The events of a read are searched in order, so that answer
 * holds for any later start up to `at`. Without it a needle that most events lack (`"usage"`,
 * a backslash) was searched for to the end of the read once per event: for a read of n events,
 * n times the read's length.
 */
interface Needle {
  readonly bytes: Uint8Array | number;
  readonly length: number;
  from: number;
  at: number;
}
const needle = (bytes: Uint8Array | number): Needle =>
  ({ bytes, length: typeof bytes === "number" ? 1 : bytes.length, from: Number.POSITIVE_INFINITY, at: -1 });
const OBJECT_CHUNK = needle(ascii('"object":"chat.completion.chunk"'));
const CHOICES = needle(ascii('"choices":[{'));
const FINISH = needle(ascii('"finish_reason"'));
const USAGE = needle(ascii('"usage"'));
const MODEL = needle(ascii('"model":"'));
const [QUOTE, BACKSLASH] = [needle(34), needle(92)];
const NEEDLES = [OBJECT_CHUNK, CHOICES, FINISH, USAGE, MODEL, QUOTE, BACKSLASH];
const NULL_AFTER = ascii(":null");
const NULL_USAGE = ascii(',"usage":null');
const DATA = ascii("data: ");
const EVENT_END = ascii("\n\n");
const [LF, OPEN_BRACE] = [10, 123];

// The public ID as it sits between quotes in JSON, per model ID (the catalog's few).
const idBytes = new Map<string, Uint8Array>();
const quotedId = (model: Model): Uint8Array => {
  let bytes = idBytes.get(model.id);
  if (!bytes) idBytes.set(model.id, (bytes = ascii(JSON.stringify(model.id).slice(1, -1))));
  return bytes;
};

// Buffer's native search and copy, borrowed for a plain Uint8Array. A read is never viewed
// (`.buffer`, `subarray`, `Buffer.from(buffer, …)`): the first view of a typed array that Bun
// filled makes JavaScriptCore build its ArrayBuffer object, which cost more than the rest of
// the fast path (measured: 11–15% of the gateway's time on streams).
const searchBytes = Buffer.prototype.indexOf as (this: Uint8Array, needle: Uint8Array | number, from: number) => number;
const copyBytes = Buffer.prototype.copy as (this: Uint8Array, target: Uint8Array, at: number, start: number, end: number) => number;

function startsWith(bytes: Uint8Array, prefix: Uint8Array, at: number): boolean {
  if (at < 0 || at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

// The size of the buffer a read's bytes are put in. Reads are a few KB; a larger one (an event
// may be up to 10 MB) gets an array of its own rather than pinning its size for the life of
// the process.
const KEPT_BUFFER_BYTES = 64 * 1024;

/**
 * What is passed on of a read: ranges of it and bytes put in, in order, written out at the end.
 * One for the process, emptied by each `relayedReadAsIs` (which runs to its end without
 * yielding): a stream relays tens of reads a second, and their garbage is most of what a
 * finished stream leaves to collect.
 */
class Splice {
  // A range is two numbers (start, end); bytes put in are a Uint8Array.
  private readonly parts: (number | Uint8Array)[] = [];
  private length = 0;
  private markedParts = 0;
  private markedLength = 0;
  private readonly out = new Uint8Array(KEPT_BUFFER_BYTES);

  clear(): void {
    this.parts.length = 0;
    this.length = 0;
  }

  keep(start: number, end: number): void {
    this.parts.push(start, end);
    this.length += end - start;
  }

  put(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  /** Remembers where it is, for `undo`. */
  mark(): void {
    this.markedParts = this.parts.length;
    this.markedLength = this.length;
  }

  /** Forgets what was added since `mark`. */
  undo(): void {
    this.parts.length = this.markedParts;
    this.length = this.markedLength;
  }

  /**
   * The bytes kept of `read` and put in, in order, in a buffer of the process's that the next
   * call overwrites. A new array per read cost more than a copy: reads of a few chunks pass
   * the ~1 KB above which JavaScriptCore allocates an array's bytes outside its heap, and
   * those waited for a full collection, tens of megabytes with thousands of streams open.
   */
  of(read: Uint8Array): Uint8Array {
    const out = this.length > KEPT_BUFFER_BYTES ? new Uint8Array(this.length) : this.out;
    let at = 0;
    for (let i = 0; i < this.parts.length; i++) {
      const part = this.parts[i] as number | Uint8Array;
      if (typeof part === "number") {
        const end = this.parts[++i] as number;
        at += copyBytes.call(read, out, at, part, end);
      } else {
        out.set(part, at);
        at += part.length;
      }
    }
    return out.subarray(0, this.length);
  }
}

const splice = new Splice();

/** Where `needle` first is in `read` from `from` on, before `end`; -1 when it is not. Searches again only when what `needle` remembers cannot answer. */
function find(read: Uint8Array, needle: Needle, from: number, end: number): number {
  if (from < needle.from || (needle.at >= 0 && needle.at < from)) {
    needle.at = searchBytes.call(read, needle.bytes, from);
    needle.from = from;
  }
  return needle.at >= 0 && needle.at < end ? needle.at : -1;
}

/**
 * Adds to `splice` the chunk in `read` from `start` to `end` (an event's JSON) as the client
 * gets it, when all it needs is its `model` said again (and OpenAI's `"usage":null` dropped):
 * it has choices, no usage, no finish_reason yet, and `object` is already the spec's. False
 * when it needs `readChunk`. Searching the text is sound because a quote inside a JSON string
 * is always escaped: `"usage"` or `"model":"` can only be found where they are keys.
 */
function chunkAsIs(read: Uint8Array, start: number, end: number, model: Model): boolean {
  if (find(read, OBJECT_CHUNK, start, end) < 0 || find(read, CHOICES, start, end) < 0) return false;
  for (let at = find(read, FINISH, start, end); at >= 0; at = find(read, FINISH, at + FINISH.length, end)) {
    if (!startsWith(read, NULL_AFTER, at + FINISH.length)) return false;
  }
  const usage = find(read, USAGE, start, end);
  if (usage >= 0 && (!startsWith(read, NULL_USAGE, usage - 1) || find(read, USAGE, usage + 1, end) >= 0)) return false;
  const key = find(read, MODEL, start, end);
  if (key < 0 || find(read, MODEL, key + 1, end) >= 0) return false;
  const valueStart = key + MODEL.length;
  const valueEnd = find(read, QUOTE, valueStart, end);
  const escape = find(read, BACKSLASH, valueStart, end);
  if (valueEnd < 0 || (escape >= 0 && escape < valueEnd)) return false;
  // What is kept, in order: around `,"usage":null` if any, and around the model's value.
  const nullUsage = usage - 1;
  let from = start;
  if (usage >= 0 && nullUsage < valueStart) {
    splice.keep(from, nullUsage);
    from = nullUsage + NULL_USAGE.length;
  }
  splice.keep(from, valueStart);
  splice.put(quotedId(model));
  from = valueEnd;
  if (usage >= 0 && nullUsage > valueStart) {
    splice.keep(from, nullUsage);
    from = nullUsage + NULL_USAGE.length;
  }
  splice.keep(from, end);
  return true;
}

/** The events that `relayedReadAsIs` passed on from where it was asked to start: their bytes, how many, and where they end. */
export interface AsIs {
  /** Lent: the next call of `relayedReadAsIs` (or `relayedAsIs`) overwrites them, so they are written or copied before it. */
  bytes: Uint8Array;
  events: number;
  /** The byte of the read where the events it could not pass on begin: the read's length when it passed on them all. */
  end: number;
}

/**
 * The events of a read of whole events (`StreamRead.bytes`) as the client gets them, from the
 * one at byte `from` (the first, unless the relay took some itself) up to one that needs
 * `readChunk`: each is one `data: ` line holding a chunk that `chunkAsIs` can pass on. The
 * relay parses the rest. Most reads of a stream are all such, and
 * neither decoding them nor parsing and stringifying their JSON was most of the relay's cost
 * and garbage per chunk.
 */
export function relayedReadAsIs(read: Uint8Array, model: Model, from = 0): AsIs {
  splice.clear();
  for (const n of NEEDLES) n.from = Number.POSITIVE_INFINITY;
  let events = 0;
  let at = from;
  while (at < read.length) {
    const end = objectLineEnd(read, at);
    const start = at + DATA.length;
    if (end < 0) break;
    splice.mark();
    splice.keep(at, start);
    if (!chunkAsIs(read, start, end, model)) {
      splice.undo();
      break;
    }
    splice.keep(end, end + EVENT_END.length);
    events++;
    at = end + EVENT_END.length;
  }
  return { bytes: splice.of(read), events, end: at };
}

/** Where the event at `at` ends (before its blank line) when it is one `data: ` line holding a JSON object (so not `[DONE]`); else -1. */
function objectLineEnd(read: Uint8Array, at: number): number {
  const end = searchBytes.call(read, EVENT_END, at);
  const start = at + DATA.length;
  return end < 0 || !startsWith(read, DATA, at) || read[start] !== OPEN_BRACE || read.indexOf(LF, start) !== end ? -1 : end;
}

const utf8Slice = Buffer.prototype.utf8Slice as (this: Uint8Array, start: number, end: number) => string;

/**
 * A read's first event, when it is one `data: ` line holding a JSON object: its payload, decoded
 * alone, and where the event ends (after its blank line), so that the relay can parse the
 * stream's first chunk and pass on the events after it in the same read as their bytes.
 */
export function leadingEvent(read: Uint8Array): { data: string; end: number } | null {
  const end = objectLineEnd(read, 0);
  return end < 0 ? null : { data: utf8Slice.call(read, DATA.length, end), end: end + EVENT_END.length };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One event's `data:` payload as the client gets it (see `relayedReadAsIs`), or null when it needs `readChunk`. */
export function relayedAsIs(data: string, model: Model): string | null {
  const read = encoder.encode(`data: ${data}\n\n`);
  const asIs = relayedReadAsIs(read, model);
  return asIs.end === read.length ? decoder.decode(asIs.bytes.subarray(DATA.length, asIs.bytes.length - EVENT_END.length)) : null;
}
