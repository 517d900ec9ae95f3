// A Responses stream (platform.openai.com/docs/api-reference/responses-streaming) written from
// what the chat relay emits: chat chunks (translated providers) or native events carried in
// chunks (native.ts), the final one with the usage and its charge, or the relay's error. Each
// event goes out as `event: <type>` and `data: {type, sequence_number, ...}`.
import type { StreamSink } from "../chat/relay.ts";
import { RewritingSink } from "../chat/rewriting-sink.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import type { ResponsesRequest } from "./request.ts";
import { fromNative, messageItem, outcomeOf, reasoningItem, responseObject, responsesUsage, sealFor, type ResponseHead } from "./response.ts";
import { callItem, callItemId, chatToolsOf, customInput, type NamedTool } from "./tool-names.ts";

type Fields = Record<string, unknown>;

interface OpenItem {
  id: string;
  kind: "text" | "call" | "reasoning";
  text: string;
  call_id: string;
  /** A call's tool (a custom tool's input is written whole at the end: it streams wrapped in JSON). */
  tool?: NamedTool;
  /** A reasoning item's seal, made once when it is done. */
  sealed?: string | null;
}

const PREFIX: Record<Exclude<OpenItem["kind"], "call">, string> = { text: "msg", reasoning: "rs" };

const objectOr = (value: unknown): Fields => (typeof value === "object" && value !== null ? (value as Fields) : {});

/** What a Responses stream is written with, beside the request. */
export interface ResponseStream {
  /** The Response's id (the gateway's own). */
  id: string;
  model: string;
  /** The chunks carry a provider's own Responses events (native.ts), not chat deltas. */
  native: boolean;
  now: () => number;
  /** Keeps the finished Response (stored responses); its last event waits for it. */
  keep?: (response: Fields & { id: string }) => Promise<unknown>;
  seal: ReasoningSeal;
}

/** A native stream's terminal events: they carry the finished Response. */
const FINISHED = new Set(["response.completed", "response.incomplete"]);

/** Rewrites the chat relay's payloads as Responses events onto `sink`. */
export class ResponseEvents extends RewritingSink {
  private sequence = 0;
  private head: ResponseHead | null = null;
  private readonly items: OpenItem[] = [];
  private readonly calls = new Map<number, OpenItem>();
  private text: OpenItem | null = null;
  private reasoning: OpenItem | null = null;
  /** The terminal event (`response.completed` or `.incomplete`), sent at `done`. */
  private terminal: { type: string; fields: Fields } | null = null;

  constructor(
    sink: StreamSink,
    private readonly request: ResponsesRequest,
    private readonly stream: ResponseStream,
  ) {
    super(sink);
  }

  private get model(): string {
    return this.stream.model;
  }


  private send(type: string, fields: Fields): void {
    this.out += `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...fields })}\n\n`;
  }

  protected read(chunk: Fields): void {
    // The relay's own error event has nothing but `error`; a provider's chunk always has choices.
    if (!("choices" in chunk)) return this.failed(objectOr(chunk.error));
    if (this.stream.native) return this.native(objectOr(chunk.event), chunk.usage);
    this.started(chunk);
    const choice = objectOr((chunk.choices as unknown[] | undefined)?.[0]);
    const delta = objectOr(choice.delta);
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content) this.reasoningDelta(delta.reasoning_content);
    if (typeof delta.content === "string" && delta.content) this.textDelta(delta.content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.callDelta(objectOr(call));
    if (choice.finish_reason != null || chunk.usage) this.completed(choice.finish_reason, chunk.usage);
  }

  /** A native event as the provider sent it, renumbered, with the public model and, at the end, the charged usage. */
  private native(event: Fields, wireUsage: unknown): void {
    const { type, sequence_number: _sequence, ...fields } = event;
    if (typeof fields.response === "object" && fields.response !== null) {
      const response = fields.response as Fields;
      fields.response = fromNative(response, this.request, { id: this.stream.id, model: this.model }, wireUsage || undefined);
      this.head ??= { id: this.stream.id, created_at: Number(response.created_at), model: this.model };
    }
    if (FINISHED.has(String(type))) this.finish(String(type), fields);
    else this.send(String(type), fields);
  }

  /**
   * The last event waits for the relay's `[DONE]`: a client (Codex) ends its turn on it, so the
   * charge is written by then, and a charge that could not be written ends the stream as
   * `response.failed` instead.
   */
  private finish(type: string, fields: Fields): void {
    this.terminal = { type, fields };
  }

  /** The charge is written: the last event, once the response is kept where the client asked for that (`keep`), so that a next turn finds it. */
  protected override done(): void {
    const terminal = this.terminal;
    this.terminal = null;
    if (!terminal) return;
    const keep = this.stream.keep;
    if (!keep) return this.send(terminal.type, terminal.fields);
    this.hold(keep(terminal.fields.response as Fields & { id: string }), () => this.send(terminal.type, terminal.fields));
  }

  private started(chunk: Fields): void {
    if (this.head) return;
    const created = Number.isInteger(chunk.created) ? Number(chunk.created) : Math.floor(this.stream.now() / 1000);
    this.head = { id: this.stream.id, created_at: created, model: this.model };
    const response = responseObject(this.head, this.request, { status: "in_progress", output: [], usage: null });
    this.send("response.created", { response });
    this.send("response.in_progress", { response });
  }

  private open(kind: OpenItem["kind"], call: { call_id: string; tool?: NamedTool } = { call_id: "" }): OpenItem {
    const rest = `${this.head?.id.slice(5)}_${this.items.length}`;
    const id = kind === "call" ? callItemId(call.tool!, rest) : `${PREFIX[kind]}_${rest}`;
    const item: OpenItem = { id, kind, text: "", ...call };
    this.items.push(item);
    // An item with parts starts without them: OpenAI's clients append the part that content_part.added announces.
    const added = kind === "call" ? this.itemOf(item, "in_progress") : { ...this.itemOf(item, "in_progress"), content: [] };
    this.send("response.output_item.added", { output_index: this.items.length - 1, item: added });
    if (kind !== "call") this.send("response.content_part.added", { item_id: item.id, output_index: this.items.length - 1, content_index: 0, part: this.partOf(item) });
    return item;
  }

  private itemOf(item: OpenItem, status: string): Fields {
    if (item.kind === "text") return messageItem(item.id, item.text, status);
    if (item.kind === "reasoning") return reasoningItem(item.id, item.text, status, item.sealed ?? null);
    return callItem(item.id, { call_id: item.call_id, arguments: item.text }, item.tool!, status);
  }

  private partOf(item: OpenItem): Fields {
    return item.kind === "text" ? { type: "output_text", text: item.text, annotations: [] } : { type: "reasoning_text", text: item.text };
  }

  private reasoningDelta(delta: string): void {
    this.reasoning ??= this.open("reasoning");
    this.reasoning.text += delta;
    this.send("response.reasoning_text.delta", { item_id: this.reasoning.id, output_index: this.items.indexOf(this.reasoning), content_index: 0, delta });
  }

  private textDelta(delta: string): void {
    this.text ??= this.open("text");
    this.text.text += delta;
    this.send("response.output_text.delta", { item_id: this.text.id, output_index: this.items.indexOf(this.text), content_index: 0, delta, logprobs: [] });
  }

  private callDelta(call: Fields): void {
    const index = Number(call.index ?? 0);
    const fn = objectOr(call.function);
    let item = this.calls.get(index);
    if (!item) {
      item = this.open("call", { call_id: String(call.id ?? `call_${index}`), tool: chatToolsOf(this.request.tools).named(String(fn.name ?? "")) });
      this.calls.set(index, item);
    }
    if (typeof fn.arguments === "string" && fn.arguments) {
      item.text += fn.arguments;
      if (!item.tool!.custom) this.send("response.function_call_arguments.delta", { item_id: item.id, output_index: this.items.indexOf(item), delta: fn.arguments });
    }
  }

  /** Each open item's closing events, then the Response with its usage and charge. */
  private completed(finishReason: unknown, wireUsage: unknown): void {
    this.items.forEach((item, output_index) => {
      const ids = { item_id: item.id, output_index };
      if (item.kind !== "call") {
        if (item.kind === "text") this.send("response.output_text.done", { ...ids, content_index: 0, text: item.text, logprobs: [] });
        else this.send("response.reasoning_text.done", { ...ids, content_index: 0, text: item.text });
        this.send("response.content_part.done", { ...ids, content_index: 0, part: this.partOf(item) });
        if (item.kind === "reasoning") item.sealed = sealFor(this.request, this.stream.seal, item.text);
      } else if (item.tool!.custom) {
        const input = customInput(item.text);
        this.send("response.custom_tool_call_input.delta", { ...ids, delta: input });
        this.send("response.custom_tool_call_input.done", { ...ids, input });
      } else {
        this.send("response.function_call_arguments.done", { ...ids, name: item.tool!.name, arguments: item.text });
      }
      this.send("response.output_item.done", { output_index, item: this.itemOf(item, "completed") });
    });
    const outcome = outcomeOf(finishReason);
    const output = this.items.map((item) => this.itemOf(item, "completed"));
    const response = responseObject(this.head!, this.request, { ...outcome, output, usage: wireUsage ? responsesUsage(wireUsage) : null });
    this.finish(outcome.status === "completed" ? "response.completed" : "response.incomplete", { response });
  }

  /** The relay's error event (the provider failed, or the charge could not be written) as `response.failed`. */
  private failed(error: Fields): void {
    this.terminal = null;
    const head = this.head ?? { id: this.stream.id, created_at: Math.floor(this.stream.now() / 1000), model: this.model };
    const output = this.items.map((item) => this.itemOf(item, "incomplete"));
    const failure = { code: error.code === "503" ? "server_error" : "upstream_error", message: String(error.message ?? "") };
    this.send("response.failed", { response: responseObject(head, this.request, { status: "failed", output, usage: null, error: failure }) });
  }
}
