import { AppError } from "../core/errors.ts";
import { readJsonBody } from "./body.ts";

/**
 * The JSON object body of an account endpoint. Malformed JSON, arrays and scalars are a 400,
 * never a 500; an empty body reads as `{}`, so that a POST whose fields are all optional needs none.
 */
export async function readObjectBody(request: Request): Promise<Record<string, unknown>> {
  if (request.body === null || request.headers.get("content-length") === "0") return {};
  const { value } = await readJsonBody(request);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AppError("invalid_request_error", "Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
