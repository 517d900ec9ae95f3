// `POST /v1/messages/count_tokens`: an estimate of the prompt's tokens, never charged. Claude
// Code asks it to decide when to compact a conversation, so it should be near the real count,
// not the reservation's upper bound (one token per byte, chat/price.ts).
import { BYTES_PER_TYPICAL_TOKEN } from "../chat/price.ts";
import type { MessagesRequest } from "./request.ts";
/** Tokens a provider adds around each message (role markers, separators). */
const PER_MESSAGE_OVERHEAD = 4;

/** The estimated input tokens of `request`: its system prompt, messages and tools. */
export function countTokens(request: MessagesRequest): number {
  const text = JSON.stringify([request.system ?? "", request.messages, request.tools ?? []]);
  return Math.ceil(Buffer.byteLength(text, "utf8") / BYTES_PER_TYPICAL_TOKEN) + PER_MESSAGE_OVERHEAD * request.messages.length;
}
