import type { StreamRead } from "../../core/chat/provider.ts";

const CR = 13;
const LF = 10;
const SPACE = 32;

/** Reads the events of a Server-Sent Events text fed to it piece by piece. */
class EventParser {
  private buffered = "";
  private data: string[] = [];
  private dataChars = 0;

  /** Nothing of an event is pending: the text so far ended where an event did. */
  get idle(): boolean {
    return this.buffered === "" && this.data.length === 0;
  }

  /** What is held of the event being read, in characters. */
  get pendingChars(): number {
    return this.dataChars + this.buffered.length;
  }

  /** The data of the events that `text` completes; each event's data lines joined, comments and other fields skipped. */
  feed(text: string): string[] {
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

const wholeDecoder = new TextDecoder();

/**
 * A read that held whole events and nothing else (it began where an event began and ended with
 * a blank line, with no carriage return): its bytes can be relayed as they are, and its events
 * are only decoded if someone asks for them.
 */
class WholeRead implements StreamRead {
  private parsed: string[] | null = null;

  constructor(readonly bytes: Uint8Array) {}

  get events(): string[] {
    this.parsed ??= new EventParser().feed(wholeDecoder.decode(this.bytes));
    return this.parsed;
  }
}

const isWhole = (chunk: Uint8Array): boolean =>
  chunk.length >= 2 && chunk[chunk.length - 1] === LF && chunk[chunk.length - 2] === LF && chunk.indexOf(CR) < 0;

/**
 * Yields, per read of a Server-Sent Events body, the `data:` payloads of the events that read
 * completed (so that what arrived together can be relayed together), with the read's bytes
 * when it held whole events only. An event (or a line) that grows past `maxEventChars` without
 * ending throws, so a provider that never sends a line break cannot make the gateway buffer
 * without bound.
 */
export async function* sseReads(body: ReadableStream<Uint8Array>, maxEventChars: number): AsyncGenerator<StreamRead> {
  const decoder = new TextDecoder();
  const parser = new EventParser();
  // The decoder holds no partial character once a read has ended with a line break.
  let atLineStart = true;
  for await (const chunk of body) {
    if (atLineStart && parser.idle && isWhole(chunk)) {
      yield new WholeRead(chunk);
      continue;
    }
    atLineStart = chunk.length > 0 ? chunk[chunk.length - 1] === LF : atLineStart;
    const events = parser.feed(decoder.decode(chunk, { stream: true }));
    if (events.length > 0) yield { events };
    if (parser.pendingChars > maxEventChars) throw new Error(`a stream event passed ${maxEventChars} characters`);
  }
  const last = parser.end();
  if (last.length > 0) yield { events: last };
}
