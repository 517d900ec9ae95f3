// Requests to POST /estimator for the estimator's integration tests.
import { expect } from "bun:test";
import { readJson } from "./http.ts";

let issued = 0;

/**
 * A new client address on every call (198.18.0.0/15, set aside for tests), so that requests sent
 * through a TRUST_PROXY gateway with it in X-Forwarded-For never share the per-IP limit.
 */
export function freshIp(): string {
  issued += 1;
  return `198.18.${Math.floor(issued / 256) % 256}.${issued % 256}`;
}

/** A body with one user message. */
export const ask = (content: string) => ({ messages: [{ role: "user", content }] });

/** POSTs `body` (JSON-encoded unless a string) to the estimator from `ip` (a fresh one by default). */
export function postEstimator(
  baseUrl: string,
  body: unknown,
  options: { ip?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const ip = options.ip === undefined ? freshIp() : options.ip;
  return fetch(`${baseUrl}/estimator`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(ip === null ? {} : { "x-forwarded-for": ip }), ...options.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The answer text of a successful estimator response, after checking the response's shape. */
export async function answerText(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  const body = await readJson(res);
  expect(body).toEqual({
    choices: [{ index: 0, message: { role: "assistant", content: expect.any(String) }, finish_reason: "stop" }],
  });
  return body.choices[0].message.content;
}
