// The base of a front door whose stream is not chat's: it reads each payload the chat relay
// emits (a chunk, the final one with the usage, `[DONE]`, or the relay's error) and writes its
// own API's events in their place, onto the response's sink.
import type { StreamSink } from "./relay.ts";

type Fields = Record<string, unknown>;

const decoder = new TextDecoder();

export abstract class RewritingSink implements StreamSink {
  /** What `read` wrote for the payloads of one `emit`, sent in one write. */
  protected out = "";

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

  emit(payload: string): void {
    for (const event of payload.split("\n\n")) {
      if (event === "data: [DONE]") this.done();
      else if (event.startsWith("data: ")) this.read(JSON.parse(event.slice("data: ".length)) as Fields);
    }
    const out = this.out;
    this.out = "";
    if (out) this.sink.emit(out);
  }

  /** One chunk, or the relay's error (`{error}`, no choices). */
  protected abstract read(chunk: Fields): void;

  /** The relay's `[DONE]`: the usage is charged and the stream is over. */
  protected done(): void {}
}
