// The Responses API's state, kept by the gateway for each account (docs/decisions.md, "Stored
// responses"): a later turn names an earlier response (`previous_response_id`) or earlier items
// (`item_reference`), and the whole conversation is sent to the provider, which keeps nothing.
import { AppError } from "../errors.ts";
import type { ReasoningSeal } from "../reasoning-seal.ts";
import type { InputItem, ResponsesRequest } from "./request.ts";

type Fields = Record<string, unknown>;

/** A conversation longer than this is refused: start a new one (every turn is resent whole). */
export const MAX_CHAIN_TURNS = 500;

export interface ItemsPage {
  /** An item id: the page starts after it. */
  after?: string;
  limit: number;
  order: "asc" | "desc";
}

/** An item as stored: as the client or the provider wrote it, and the id a reference names it by. */
export interface StoredItem {
  id: string;
  item: Fields;
}

export interface NewStoredResponse {
  accountId: string;
  /** The Response object as the client was answered. */
  response: Fields & { id: string };
  previousResponseId: string | null;
  /** This turn's own input items (item references resolved) and the response's output items, each under its id. */
  input: StoredItem[];
  output: StoredItem[];
  createdAt: number;
  expiresAt: number;
}

export interface StoredChain {
  items: Fields[];
  /** The items' size as stored (JSON text): what they add to the request. */
  bytes: number;
  truncated: boolean;
}

/**
 * Each method is one transaction; an account reads and deletes only its own, unexpired state.
 * A conversation's reads are scoped by the hash of the request's API key: they are for the
 * account that holds it, found in the same statement (a later turn reads its conversation before
 * its admission, which judges the key, so that the key's lookup costs no round trip of its own).
 */
export interface ResponsesStore {
  /**
   * The items of the conversation that ends with `responseId`, oldest first: every turn's
   * input then output, from the first turn on; at most `maxTurns` turns (`truncated` when there
   * are more). Null when the key's account has no such response.
   */
  responseChain(keyHash: string, responseId: string, now: number, maxTurns: number): Promise<StoredChain | null>;
  /** The key's account's stored items by id (the latest of each id). */
  storedItems(keyHash: string, itemIds: readonly string[], now: number): Promise<Map<string, Fields>>;
  saveResponse(response: NewStoredResponse): Promise<void>;
  storedResponse(accountId: string, responseId: string, now: number): Promise<Fields | null>;
  /** False when the account has no such response. */
  deleteStoredResponse(accountId: string, responseId: string, now: number): Promise<boolean>;
  /** A page of a response's own input items; null when the account has no such response. */
  responseInputItems(accountId: string, responseId: string, now: number, page: ItemsPage): Promise<{ items: Fields[]; hasMore: boolean } | null>;
  /** Removes expired responses and those of deleted accounts, at most `limit`; how many went. */
  sweepStoredResponses(now: number, limit: number): Promise<number>;
}

/**
 * Whether an id can name stored state: ids the gateway and the providers hand out are short and
 * printable, and Postgres cannot even be asked about a string holding a NUL. Any other id names
 * nothing, and is told so without a look-up.
 */
export const lookable = (id: string): boolean => id.length > 0 && id.length <= 256 && !/[\u0000-\u001f\u007f]/.test(id);

const previousNotFound = (id: string) =>
  new AppError("invalid_request_error", `Previous response with id '${id}' not found.`, { param: "previous_response_id", code: "previous_response_not_found" });

/**
 * A new response's id: the gateway's own, so that no provider's id (or a fake's) can collide in
 * the store. Time-ordered (UUIDv7), so that its rows and its items' land at the end of their
 * indexes instead of on a random page each (74 random bits remain; an id is only ever looked up
 * within its account).
 */
export const newResponseId = (): string => `resp_${Bun.randomUUIDv7().replaceAll("-", "")}`;

/**
 * An item under its own id, or (an input item sent without one) an id of the gateway's, kept
 * beside it: the item itself is resent to providers as the client wrote it.
 */
function storedItem(item: Fields, responseId: string, index: number): StoredItem {
  if (typeof item.id === "string" && lookable(item.id)) return { id: item.id, item };
  const prefix = item.type === "function_call_output" ? "fco" : item.type === "function_call" ? "fc" : "msg";
  return { id: `${prefix}_${responseId.slice("resp_".length)}_${index}`, item };
}

export interface Conversation {
  /** What the provider is sent: the stored turns, then this request's input with its references resolved (a lone string as it came). */
  input: Fields[] | string;
  /** This request's own input items, references resolved: what the turn stores. */
  own: Fields[];
  /** The bytes the stored part adds to the request (it bounds the prompt's tokens as the body does). */
  storedBytes: number;
}

/**
 * The conversation a request continues: the stored chain of `previous_response_id` before its
 * input, and each `item_reference` replaced by the stored item. Unknown, expired, deleted or
 * another account's ids are the 400s OpenAI answers; nothing is reserved before this is known.
 * Read for the key's holder before the key is judged: a refused key is told its refusal, by the
 * admission that follows or, when this fails first, by the door (which judges the key of a
 * request that failed before its admission), and never what was read.
 */
export async function conversationOf(store: ResponsesStore, keyHash: string, request: ResponsesRequest, now: number): Promise<Conversation> {
  const items: InputItem[] | Fields[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
  let earlier: Fields[] = [];
  let storedBytes = 0;
  if (request.previous_response_id) {
    const chain = lookable(request.previous_response_id) ? await store.responseChain(keyHash, request.previous_response_id, now, MAX_CHAIN_TURNS) : null;
    if (!chain) throw previousNotFound(request.previous_response_id);
    if (chain.truncated) {
      throw new AppError("invalid_request_error", `previous_response_id: the conversation has more than ${MAX_CHAIN_TURNS} turns; start a new one`, { param: "previous_response_id" });
    }
    earlier = chain.items;
    storedBytes = chain.bytes;
  }
  const references = (items as Fields[]).flatMap((item) => (item.type === "item_reference" && lookable(String(item.id)) ? [String(item.id)] : []));
  const found = references.length > 0 ? await store.storedItems(keyHash, references, now) : new Map<string, Fields>();
  const own = (items as Fields[]).map((item, index) => {
    if (item.type !== "item_reference") return item;
    const stored = found.get(String(item.id));
    if (!stored) throw new AppError("invalid_request_error", `input[${index}] is an item_reference to '${String(item.id)}', which is not a stored item`, { param: `input[${index}]` });
    return stored;
  });
  if (found.size > 0) storedBytes += Buffer.byteLength(JSON.stringify([...found.values()]), "utf8");
  const input = earlier.length === 0 && typeof request.input === "string" ? request.input : [...earlier, ...own];
  return { input, own, storedBytes };
}

/**
 * A reasoning item as kept for the next turn: one the gateway wrote (a translated model's, whose
 * text it may have to restore, as DeepSeek's thinking mode needs) is kept sealed, as if the client
 * had asked for `encrypted_content`. A provider's own encrypted one is kept as it came.
 */
function keptReasoning(item: Fields, seal: ReasoningSeal): Fields {
  if (item.type !== "reasoning" || typeof item.encrypted_content === "string" || !Array.isArray(item.content)) return item;
  const text = (item.content as Fields[]).map((part) => (typeof part.text === "string" ? part.text : "")).join("");
  const sealed = text ? seal.seal(text) : null;
  return sealed === null ? item : { ...item, encrypted_content: sealed };
}

/** What a turn stores: its Response as answered, its own input and the Response's output. */
export function storedTurn(accountId: string, response: Fields & { id: string }, own: Fields[], request: ResponsesRequest, now: number, retentionMs: number, seal: ReasoningSeal): NewStoredResponse {
  const output = Array.isArray(response.output) ? (response.output as Fields[]).map((item) => keptReasoning(item, seal)) : [];
  return {
    accountId,
    response,
    previousResponseId: request.previous_response_id ?? null,
    input: own.map((item, index) => storedItem(item, response.id, index)),
    output: output.map((item, index) => storedItem(item, response.id, own.length + index)),
    createdAt: now,
    expiresAt: now + retentionMs,
  };
}

/**
 * An input item as OpenAI lists it (`GET /v1/responses/{id}/input_items`): a message as a
 * `message` item whose content is a list of parts (a string as one `input_text` part, or
 * `output_text` for the assistant's), with a status; other items as they were sent.
 */
export function listedItem(item: Fields): Fields {
  if (item.type !== undefined && item.type !== "message") return item;
  const content = typeof item.content === "string" ? [{ type: item.role === "assistant" ? "output_text" : "input_text", text: item.content }] : item.content;
  return { ...item, type: "message", status: item.status ?? "completed", content };
}

const PAGE_LIMIT = { min: 1, max: 100, default: 20 };

/** `GET /v1/responses/{id}/input_items`'s query as OpenAI documents it: `after`, `limit` 1–100 (20), `order` asc or desc (desc). */
export function parseItemsPage(query: Record<string, string | undefined>): ItemsPage {
  const limit = query.limit === undefined ? PAGE_LIMIT.default : Number(query.limit);
  if (!Number.isInteger(limit) || limit < PAGE_LIMIT.min || limit > PAGE_LIMIT.max) {
    throw new AppError("invalid_request_error", `limit must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`, { param: "limit" });
  }
  const order = query.order ?? "desc";
  if (order !== "asc" && order !== "desc") throw new AppError("invalid_request_error", "order must be asc or desc", { param: "order" });
  return { limit, order, ...(query.after ? { after: query.after } : {}) };
}
