import { basePath, signInUrl, withOrg } from "./env.ts";

/** A failed call: the HTTP status (0 when the gateway could not be reached) and a message for people. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

// Codes the spec fixes as error texts, said in words.
const FRIENDLY: Record<string, string> = {
  rate_limit_exceeded: "You have created 5 keys in the last hour. Try again later.",
  capacity_exhausted: "Credit packs are sold out for this month. Try again later.",
};

function errorMessage(payload: unknown, status: number): string {
  const body = (typeof payload === "object" && payload !== null ? payload : {}) as { error?: unknown; message?: unknown };
  // Key validation answers {error: "validation error", message: "<field> <why>"}; the message is the useful part.
  const text = typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : null;
  if (text === null) return `The request failed (HTTP ${status}).`;
  return FRIENDLY[text] ?? text;
}

/**
 * A same-origin JSON call to the gateway with the session cookie, for the organization the page
 * acts for (`?org=`, added here for every call). A 401 means the session has ended: the browser
 * goes to the sign-in page (unless `unauthorized: "throw"`, for sign-in itself).
 */
export async function call<T>(method: string, path: string, body?: unknown, options: { unauthorized?: "sign-in" | "throw" } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const init: RequestInit = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(basePath + withOrg(path), init);
  } catch {
    throw new ApiError(0, "The gateway could not be reached. Check your connection and try again.");
  }
  const payload: unknown = await res.json().catch(() => null);
  if (res.status === 401 && options.unauthorized !== "throw") {
    location.assign(signInUrl());
    throw new ApiError(401, "Your session has ended. Taking you to the sign-in page…");
  }
  if (!res.ok) throw new ApiError(res.status, errorMessage(payload, res.status));
  return payload as T;
}
