import { concatBytes } from "../core/bytes.ts";
import { AppError } from "../core/errors.ts";

/** The spec's body limit for chat and estimator: 64KB, read as 65,536 bytes. */
export const BODY_LIMIT_BYTES = 65_536;
/** The default body limit of the doors agents use (`/v1/messages`, `/v1/responses`): Claude Code's sessions pass 64 KB in a few turns. */
export const AGENT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * The client closed its connection before it had sent the body it announced (a Content-Length
 * larger than what came, a chunked body never ended). The client's doing, as a client that
 * leaves mid-stream is: nothing was admitted, nobody is answered, and it is no failure of the
 * gateway's to log as an error. A 400 for the request line, which says `clientDisconnected`.
 */
export class BodyCutShort extends AppError {
  constructor() {
    super("invalid_request_error", "The request body was cut short: the client closed the connection");
  }
}

/** What reading the request's body threw: the client's leaving as `BodyCutShort`, anything else as it is. */
const cutShort = (request: Request) => (error: unknown): never => {
  if (request.signal.aborted || (error as Error | undefined)?.name === "AbortError") throw new BodyCutShort();
  throw error;
};

/** A parsed body with its size in bytes (the chat path bounds prompt tokens by it). */
interface JsonBody {
  value: unknown;
  bytes: number;
}

/**
 * Reads and parses a JSON body of at most `limit` bytes. The declared Content-Length is
 * checked first, and the stream is counted while it is read, so an oversized body is refused
 * (413) without being buffered whole; a body that is not JSON is a 400.
 */
export async function readJsonBody(request: Request, limit = BODY_LIMIT_BYTES): Promise<JsonBody> {
  const tooLarge = () => new AppError("payload_too_large", `Request body exceeds ${limit} bytes`);
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) throw tooLarge();
  let text: string;
  let size: number;
  if (Number.isInteger(declared)) {
    // HTTP framing holds the body to its declared length, which is within the limit. Read
    // whole, without `request.body`: touching it makes Bun build a ReadableStream, its source
    // and a reader for the request (objects that live as long as the request, a stream's
    // whole life on the chat path).
    text = await request.text().catch(cutShort(request));
    size = declared;
  } else if (!request.body) {
    text = "";
    size = 0;
  } else {
    const read = await readCounting(request.body, limit).catch(cutShort(request));
    if (read === null) throw tooLarge();
    ({ text, size } = read);
  }
  try {
    return { value: JSON.parse(text), bytes: size };
  } catch {
    throw new AppError("invalid_request_error", "Request body is not valid JSON");
  }
}

/** Reads a body of unknown length, giving up (null) as soon as it passes `limit` bytes. */
export async function readCounting(body: ReadableStream<Uint8Array>, limit: number): Promise<{ text: string; size: number } | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return { text: new TextDecoder().decode(concatBytes(chunks)), size };
}
