// The base of a front door whose stream is not chat's: it reads each payload the chat relay
// emits (a chunk, the final one with the usage, `[DONE]`, or the relay's error) and writes its
// own API's events in their place, onto the response's sink.
import type { StreamSink } from "./relay.ts";

type Fields = Record<string, unknown>;

const decoder = new TextDecoder();

export abstract class RewritingSink implements StreamSink {
  /** What `read` wrote for the chunks of one read (or the payloads of one `emit`), sent in one write. */
  protected out = "";
  /** Events held until some work is done (`hold`), with any written after them. */
  private held: Promise<string> | null = null;

  constructor(private readonly sink: StreamSink) {}

  get gone(): boolean {
    return this.sink.gone;
  }

  flush(): Promise<void> {
    return this.sink.flush();
  }

  emitBytes(payload: Uint8Array): void {
    this.emit(decoder.decode(payload));
  }

  /** The relay's parsed chunks, rewritten. */
  chunks(chunks: readonly Fields[]): void {
    for (const chunk of chunks) this.read(chunk);
    this.writeOut();
  }

  /** The relay's own events: `[DONE]` and its error. */
  emit(payload: string): void {
    for (const event of payload.split("\n\n")) {
      if (event === "data: [DONE]") this.done();
      else if (event.startsWith("data: ")) this.read(JSON.parse(event.slice("data: ".length)) as Fields);
    }
    this.writeOut();
  }

  private writeOut(): void {
    const out = this.out;
    this.out = "";
    if (this.held) this.held = this.held.then((text) => text + out);
    else if (out) this.sink.emit(out);
  }

  /**
   * Writes what is pending now, then holds the events `write` adds, and whatever follows them,
   * until `work` has settled; `finished` writes them.
   */
  protected hold(work: Promise<unknown>, write: () => void): void {
    if (this.out) this.sink.emit(this.out);
    this.out = "";
    write();
    const text = this.out;
    this.out = "";
    this.held = work.then(() => text, () => text);
  }

  async finished(): Promise<void> {
    if (!this.held) return;
    const text = await this.held;
    this.held = null;
    if (text) this.sink.emit(text);
  }

  /** One chunk, or the relay's error (`{error}`, no choices). */
  protected abstract read(chunk: Fields): void;

  /** The relay's `[DONE]`: the usage is charged and the stream is over. */
  protected done(): void {}
}
