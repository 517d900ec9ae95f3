import { describe, expect, test } from "bun:test";
import { malformedAnswer, ProviderTimeout, unreachable, upstreamFailure } from "../../../src/core/chat/failures.ts";
import { AppError } from "../../../src/core/errors.ts";

/** What the client sees of an error: `{ error: { message, type, code } }` follows from these. */
const seen = (error: AppError) => ({ kind: error.kind, status: error.status, type: error.chatType, message: error.message });
const providerBody = (error: Record<string, unknown>) => JSON.stringify({ error });

describe("upstreamFailure", () => {
  const contextTooLong = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.";

  test.each([400, 422])("%i keeps the provider's message: the client's to fix", (status) => {
    const error = upstreamFailure(status, providerBody({ message: contextTooLong, type: "invalid_request_error" }), []);
    expect(seen(error)).toEqual({ kind: "invalid_request_error", status: 400, type: "invalid_request_error", message: contextTooLong });
  });

  test.each([
    ["an empty body", ""],
    ["a body that is not JSON", "<html>Bad Request</html>"],
    ["no error object", JSON.stringify({ message: "top-level message" })],
    ["an error string", JSON.stringify({ error: "bad request" })],
    ["an empty message", providerBody({ message: "" })],
    ["a message that is not a string", providerBody({ message: { text: "bad" } })],
    ["JSON null", "null"],
  ])("400 with %s says the provider rejected the request", (_title, body) => {
    expect(seen(upstreamFailure(400, body, []))).toEqual({
      kind: "invalid_request_error",
      status: 400,
      type: "invalid_request_error",
      message: "The provider rejected the request",
    });
  });

  test("shortens a long provider message to its first 500 characters", () => {
    const long = `${"a".repeat(499)}bc${"d".repeat(1_000)}`;
    expect(upstreamFailure(422, providerBody({ message: long }), []).message).toBe(`${"a".repeat(499)}b`);
  });

  test.each([
    ["a bearer header quoted", "Invalid header: Authorization: Bearer sk-PROVIDERSECRET-openai", "Invalid header: Authorization: Bearer [redacted]"],
    ["a configured key bare", "key short-cfg-key is not valid for model x", "key [redacted] is not valid for model x"],
    ["the second of several configured keys", "bad key: second.key/with+odd=chars", "bad key: [redacted]"],
    ["a bearer token of any shape, any case", "got bearer abc.def-123 instead", "got Bearer [redacted] instead"],
    ["a secret-looking key", "Incorrect API key provided: sk-proj-AbCdEf0123456789xyz", "Incorrect API key provided: [redacted]"],
    ["an Anthropic key", "x-api-key sk-ant-api03-AbCdEf0123456789xyz refused", "x-api-key [redacted] refused"],
  ])("a 400's message has %s taken out", (_title, message, told) => {
    const secrets = ["short-cfg-key", "second.key/with+odd=chars", "sk-PROVIDERSECRET-openai"];
    expect(upstreamFailure(400, providerBody({ message }), secrets).message).toBe(told);
  });

  test("takes a key out before shortening, so that no part of it is left at the cut", () => {
    const key = "cfg-secret-0123456789";
    const message = `${"a".repeat(490)}${key} and more`;
    const told = upstreamFailure(400, providerBody({ message }), [key]).message;
    expect(told).toBe(`${"a".repeat(490)}[redacted]`);
    expect(told).not.toContain(key.slice(0, 10));
  });

  test("passes the message only, never the provider's other fields", () => {
    const body = providerBody({ message: "Invalid 'messages'", type: "invalid_request_error", param: "messages", code: "sk-live-leaked", key: "sk-proj-abc" });
    expect(upstreamFailure(400, body, []).message).toBe("Invalid 'messages'");
  });

  test.each([401, 403, 404, 429, 500, 502, 503])("%i is the provider's failure, its words withheld", (status) => {
    const body = providerBody({ message: "Incorrect API key provided: sk-proj-abc***xyz" });
    expect(seen(upstreamFailure(status, body, []))).toEqual({
      kind: "provider_error",
      status: 502,
      type: "provider_error",
      message: `Upstream provider request failed with status ${status}`,
    });
  });
});

describe("unreachable", () => {
  test.each([
    [120_000, "Upstream provider timed out after 120 s"],
    [30_000, "Upstream provider timed out after 30 s"],
    [1_500, "Upstream provider timed out after 2 s"],
  ])("a timeout after %i ms is a ProviderTimeout saying %p", (timeoutMs, message) => {
    const error = unreachable(true, timeoutMs);
    expect(error).toBeInstanceOf(ProviderTimeout);
    expect(seen(error)).toEqual({ kind: "provider_error", status: 502, type: "provider_error", message });
  });

  test("a provider that could not be reached or broke off is a plain provider_error", () => {
    const error = unreachable(false, 120_000);
    expect(error).not.toBeInstanceOf(ProviderTimeout);
    expect(seen(error)).toEqual({ kind: "provider_error", status: 502, type: "provider_error", message: "Upstream provider request failed" });
  });
});

test("ProviderTimeout is an AppError of kind provider_error", () => {
  const error = new ProviderTimeout(120_000);
  expect(error).toBeInstanceOf(AppError);
  expect(seen(error)).toEqual({ kind: "provider_error", status: 502, type: "provider_error", message: "Upstream provider timed out after 120 s" });
});

test("malformedAnswer is a provider_error about the response's shape", () => {
  expect(seen(malformedAnswer())).toEqual({
    kind: "provider_error",
    status: 502,
    type: "provider_error",
    message: "Upstream provider returned a malformed response",
  });
});
