// A Messages stream (docs.claude.com/en/docs/build-with-claude/streaming) written from what the
// chat relay emits: chat chunks (translated providers) or native events carried in chunks
// (native.ts), the final one with the usage and its charge, then `[DONE]`, or the relay's error.
// Each event goes out as `event: <type>` and `data: {type, ...}`, generated as chunks arrive.
import type { StreamSink } from "../chat/relay.ts";
import { RewritingSink } from "../chat/rewriting-sink.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import { anthropicErrorType } from "./errors.ts";
import { messageId, messagesUsage, stopReasonOf } from "./response.ts";

type Fields = Record<string, unknown>;
type BlockKind = "text" | "thinking" | "tool_use";

const objectOr = (value: unknown): Fields => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {});


/** Rewrites the chat relay's payloads as Messages events onto `sink`. */
export class MessageEvents extends RewritingSink {
  private started = false;
  private index = -1;
  private open: { kind: BlockKind; call?: number } | null = null;
  /** The open thinking block's text: its signature seals it when the block closes. */
  private thinking = "";

  /** `native`: the chunks carry a provider's own Messages events (native.ts), not chat deltas. */
  constructor(
    sink: StreamSink,
    private readonly stream: { model: string; native: boolean; seal: ReasoningSeal },
  ) {
    super(sink);
  }

  protected override done(): void {
    this.send("message_stop", {});
  }

  private send(type: string, fields: Fields): void {
    this.out += `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  }

  protected read(chunk: Fields): void {
    // The relay's own error event has nothing but `error`; a provider's chunk always has choices.
    if (!("choices" in chunk)) {
      const error = objectOr(chunk.error);
      return this.send("error", { error: { type: anthropicErrorType(Number(error.code)), message: String(error.message) } });
    }
    if (this.stream.native) return this.native(objectOr(chunk.event), chunk.usage);
    this.start(chunk);
    const choice = objectOr((chunk.choices as unknown[] | undefined)?.[0]);
    const delta = objectOr(choice.delta);
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content) this.write("thinking", delta.reasoning_content);
    if (typeof delta.content === "string" && delta.content) this.write("text", delta.content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.callDelta(objectOr(call));
    if (choice.finish_reason != null) this.finish(choice.finish_reason, chunk.usage);
  }

  /** A native event as the provider sent it, with the public model and, at the end, the charged usage. */
  private native(event: Fields, wireUsage: unknown): void {
    const { type, ...fields } = event;
    if (type === "message_start") fields.message = { ...objectOr(fields.message), model: this.stream.model };
    if (type === "message_delta" && wireUsage) fields.usage = messagesUsage(wireUsage, fields.usage);
    this.send(String(type), fields);
  }

  private start(chunk: Fields): void {
    if (this.started) return;
    this.started = true;
    const message = {
      id: messageId(chunk.id),
      type: "message",
      role: "assistant",
      content: [],
      model: this.stream.model,
      stop_reason: null,
      stop_sequence: null,
      // The prompt's count is the provider's, known at the end: message_delta carries it.
      usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    };
    this.send("message_start", { message });
    this.send("ping", {});
  }

  /** Opens a block of `kind` (closing the one before) unless it is the open one. */
  private openBlock(kind: BlockKind, call?: number, head: Fields = {}): void {
    if (this.open && this.open.kind === kind && this.open.call === call) return;
    this.closeBlock();
    this.index += 1;
    this.open = { kind, call };
    const block = kind === "text" ? { type: "text", text: "" } : kind === "thinking" ? { type: "thinking", thinking: "", signature: "" } : { type: "tool_use", input: {}, ...head };
    this.send("content_block_start", { index: this.index, content_block: block });
  }

  private closeBlock(): void {
    if (!this.open) return;
    if (this.open.kind === "thinking") {
      const signature = this.stream.seal.seal(this.thinking);
      if (signature !== null) this.send("content_block_delta", { index: this.index, delta: { type: "signature_delta", signature } });
      this.thinking = "";
    }
    this.send("content_block_stop", { index: this.index });
    this.open = null;
  }

  private write(kind: "text" | "thinking", text: string): void {
    this.openBlock(kind);
    if (kind === "thinking") this.thinking += text;
    // The event of almost every chunk, written as text: the same JSON as `send` would build.
    this.out += `event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.index},"delta":{"type":"${kind}_delta","${kind}":${JSON.stringify(text)}}}\n\n`;
  }

  /** A tool call's delta: its first names it (a block starts), the rest carry its arguments. */
  private callDelta(call: Fields): void {
    const callIndex = Number.isInteger(call.index) ? Number(call.index) : 0;
    const fn = objectOr(call.function);
    if (!(this.open?.kind === "tool_use" && this.open.call === callIndex)) {
      this.openBlock("tool_use", callIndex, { id: String(call.id ?? `toolu_${crypto.randomUUID()}`), name: String(fn.name ?? "") });
    }
    if (typeof fn.arguments === "string" && fn.arguments) this.send("content_block_delta", { index: this.index, delta: { type: "input_json_delta", partial_json: fn.arguments } });
  }

  private finish(finishReason: unknown, wireUsage: unknown): void {
    this.closeBlock();
    const usage = wireUsage ? messagesUsage(wireUsage) : undefined;
    this.send("message_delta", { delta: { stop_reason: stopReasonOf(finishReason), stop_sequence: null }, ...(usage ? { usage } : {}) });
  }
}
