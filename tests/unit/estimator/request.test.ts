import { describe, expect, test } from "bun:test";
import { AppError, MESSAGES } from "../../../src/core/errors.ts";
import { parseEstimatorRequest } from "../../../src/core/estimator/request.ts";

const user = (content: string) => ({ role: "user", content });
const refusal = (body: unknown): { kind: string; message: string } | null => {
  try {
    parseEstimatorRequest(body);
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { kind: error.kind, message: error.message };
  }
};

describe("parseEstimatorRequest", () => {
  test.each([
    ["no body", undefined, MESSAGES.estimatorMessagesRequired],
    ["a JSON array", [user("hi")], MESSAGES.estimatorMessagesRequired],
    ["a string", "hello", MESSAGES.estimatorMessagesRequired],
    ["null", null, MESSAGES.estimatorMessagesRequired],
    ["no messages field", { prompt: "hi" }, MESSAGES.estimatorMessagesRequired],
    ["messages as a string", { messages: "hi" }, MESSAGES.estimatorMessagesRequired],
    ["messages as an object", { messages: { 0: user("hi") } }, MESSAGES.estimatorMessagesRequired],
    ["an empty messages array", { messages: [] }, MESSAGES.estimatorMessagesRequired],
    ["11 messages", { messages: Array.from({ length: 11 }, () => user("hi")) }, MESSAGES.estimatorTooLong],
    ["11 malformed messages (the count is checked first)", { messages: Array(11).fill(7) }, MESSAGES.estimatorTooLong],
    ["a string item", { messages: ["hi"] }, MESSAGES.estimatorInvalidItem],
    ["a null item", { messages: [null] }, MESSAGES.estimatorInvalidItem],
    ["an array item", { messages: [[user("hi")]] }, MESSAGES.estimatorInvalidItem],
    ["a missing role", { messages: [{ content: "hi" }] }, MESSAGES.estimatorInvalidRole],
    ["a chat-only role", { messages: [{ role: "developer", content: "hi" }] }, MESSAGES.estimatorInvalidRole],
    ["a role in capitals", { messages: [{ role: "USER", content: "hi" }] }, MESSAGES.estimatorInvalidRole],
    ["a missing content", { messages: [{ role: "user" }] }, MESSAGES.estimatorInvalidContent],
    ["null content", { messages: [{ role: "user", content: null }] }, MESSAGES.estimatorInvalidContent],
    ["content parts", { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, MESSAGES.estimatorInvalidContent],
    ["2,001 characters", { messages: [user("x".repeat(2_001))] }, MESSAGES.estimatorInvalidContent],
    ["a good message then a bad item", { messages: [user("hi"), 3] }, MESSAGES.estimatorInvalidItem],
    ["a bad content before a bad role", { messages: [{ role: "user", content: 1 }, { role: "x", content: "hi" }] }, MESSAGES.estimatorInvalidContent],
  ])("refuses %s with its 400", (_, body, message) => {
    expect(refusal(body)).toEqual({ kind: "invalid_request_error", message });
  });

  test("accepts ten messages of every role, the longest content, and ignores other fields", () => {
    const longest = "x".repeat(2_000);
    const messages = [
      { role: "system", content: "You help with pricing.", name: "ignored" },
      user(longest),
      { role: "assistant", content: "" },
      ...Array.from({ length: 7 }, () => user("more")),
    ];
    expect(parseEstimatorRequest({ messages, model: "ignored" })).toEqual([
      { role: "system", content: "You help with pricing." },
      { role: "user", content: longest },
      { role: "assistant", content: "" },
      ...Array.from({ length: 7 }, () => ({ role: "user" as const, content: "more" })),
    ]);
  });

  test("counts characters, not UTF-16 units: 2,000 emoji are allowed, 2,001 are not", () => {
    expect(refusal({ messages: [user("🙂".repeat(2_000))] })).toBeNull();
    expect(refusal({ messages: [user("🙂".repeat(2_001))] })).toEqual({
      kind: "invalid_request_error",
      message: MESSAGES.estimatorInvalidContent,
    });
  });
});
