import { concatBytes } from "../../core/bytes.ts";
import type { StreamRead, WholeEventsRead } from "../../core/chat/provider.ts";

const CR = 13;
const LF = 10;
const SPACE = 32;

/** Reads the events of a Server-Sent Events body fed to it read by read, as text. */
class EventParser {
  private readonly decoder = new TextDecoder();
  private buffered = "";
  private data: string[] = [];
  private dataChars = 0;

  /** What is held of the event being read, in characters. */
  get pendingChars(): number {
    return this.dataChars + this.buffered.length;
  }

  /** The data of the events that `bytes` completes; each event's data lines joined, comments and other fields skipped. */
  feed(bytes: Uint8Array): string[] {
    return this.feedText(this.decoder.decode(bytes, { stream: true }));
  }

  /** The same for text already decoded. */
  feedText(text: string): string[] {
    const events: string[] = [];
    const buffered = this.buffered + text;
    // Lines are read in place and the buffer cut once per piece, not once per line.
    let start = 0;
    let newline: number;
    while ((newline = buffered.indexOf("\n", start)) >= 0) {
      const end = newline > start && buffered.charCodeAt(newline - 1) === CR ? newline - 1 : newline;
      if (end === start) {
        if (this.data.length > 0) events.push(this.data.join("\n"));
        this.data = [];
        this.dataChars = 0;
      } else if (buffered.startsWith("data:", start)) {
        const payload = buffered.slice(start + (buffered.charCodeAt(start + 5) === SPACE ? 6 : 5), end);
        this.data.push(payload);
        this.dataChars += payload.length;
      }
      start = newline + 1;
    }
    this.buffered = buffered.slice(start);
    return events;
  }

  /** The data of an event the text ended without a blank line after. */
  end(): string[] {
    return this.data.length > 0 ? [this.data.join("\n")] : [];
  }
}

// Buffer's UTF-8 decoding of a range, borrowed for a plain Uint8Array: no view of the read is made (see relayed-as-is.ts).
const utf8Slice = Buffer.prototype.utf8Slice as (this: Uint8Array, start: number, end: number) => string;

/**
 * A read's whole events (from where an event began to the end of the last one it completed):
 * their bytes can be relayed as they are, and the events are only decoded if someone asks, from
 * where they ask.
 */
export class WholeRead implements WholeEventsRead {
  private parsed: string[] | null = null;

  constructor(readonly bytes: Uint8Array) {}

  get events(): string[] {
    this.parsed ??= new EventParser().feed(this.bytes);
    return this.parsed;
  }

  eventsFrom(at: number): readonly string[] {
    return at === 0 ? this.events : new EventParser().feedText(utf8Slice.call(this.bytes, at, this.bytes.length));
  }
}

/** Where the last event that `bytes` completes ends (after its blank line), or 0. */
function endOfLastEvent(bytes: Uint8Array): number {
  // A read usually ends with the blank line, so this looks at its last bytes only.
  for (let at = bytes.lastIndexOf(LF); at > 0; at = bytes.lastIndexOf(LF, at - 1)) {
    if (bytes[at - 1] === LF) return at + 1;
  }
  return 0;
}

/** The reads of an event begun and not yet ended, kept apart until one ends it (so a long event is copied once). */
class Pending {
  private reads: Uint8Array[] = [];
  length = 0;

  /** Whether the blank line that ends an event begins in what is pending and ends with `read`'s first byte. */
  endsLineBefore(read: Uint8Array): boolean {
    const last = this.reads.at(-1);
    return last !== undefined && last[last.length - 1] === LF && read[0] === LF;
  }

  add(read: Uint8Array): void {
    this.reads.push(read);
    this.length += read.length;
  }

  /** What is pending and `read`, as one, leaving nothing pending. */
  take(read: Uint8Array): Uint8Array {
    if (this.reads.length === 0) return read;
    const bytes = concatBytes([...this.reads, read]);
    this.reads = [];
    this.length = 0;
    return bytes;
  }
}

/**
 * Yields, per read of a Server-Sent Events body, the `data:` payloads of the events that read
 * completed (so that what arrived together can be relayed together), with their bytes: those
 * of the read, from the start of the first event it completed to the end of the last. An event
 * (or a line) that grows past `maxEventChars` without ending throws, so a provider that never
 * sends a line break cannot make the gateway buffer without bound. A stream that ends its lines
 * with CR LF (which no provider documented here does) is read as text from its first carriage
 * return on, without bytes.
 */
export async function* sseReads(body: ReadableStream<Uint8Array>, maxEventChars: number): AsyncGenerator<StreamRead> {
  const pending = new Pending();
  let text: EventParser | null = null;
  for await (const chunk of body) {
    if (!text && chunk.indexOf(CR) >= 0) {
      text = new EventParser();
      text.feed(pending.take(new Uint8Array()));
    }
    if (text) {
      const events = text.feed(chunk);
      if (events.length > 0) yield { events };
      if (text.pendingChars > maxEventChars) throw new Error(`a stream event passed ${maxEventChars} characters`);
      continue;
    }
    const endInChunk = endOfLastEvent(chunk);
    if (endInChunk > 0 || pending.endsLineBefore(chunk)) {
      const bytes = pending.take(chunk);
      const end = bytes === chunk ? endInChunk : endOfLastEvent(bytes);
      // A read usually ends where an event does: it is then handed over without a view of it
      // (see relayed-as-is.ts for why views cost).
      if (end === bytes.length) yield new WholeRead(bytes);
      else {
        pending.add(bytes.subarray(end));
        yield new WholeRead(bytes.subarray(0, end));
      }
    } else pending.add(chunk);
    if (pending.length > maxEventChars) throw new Error(`a stream event passed ${maxEventChars} characters`);
  }
  if (!text) {
    text = new EventParser();
    text.feed(pending.take(new Uint8Array()));
  }
  const last = text.end();
  if (last.length > 0) yield { events: last };
}
