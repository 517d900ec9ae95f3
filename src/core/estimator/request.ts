import { AppError, MESSAGES } from "../errors.ts";

/** The spec's estimator limits. */
const ESTIMATOR_MAX_MESSAGES = 10;
const ESTIMATOR_MAX_CONTENT_CHARS = 2_000;

const ESTIMATOR_ROLES = ["user", "assistant", "system"] as const;
type EstimatorRole = (typeof ESTIMATOR_ROLES)[number];

export interface EstimatorMessage {
  role: EstimatorRole;
  content: string;
}

const invalid = (message: string) => new AppError("invalid_request_error", message);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isRole = (value: unknown): value is EstimatorRole =>
  typeof value === "string" && (ESTIMATOR_ROLES as readonly string[]).includes(value);

// Counted in code points, as a reader counts characters: an emoji is one, not two UTF-16 units.
// A string of at most 2,000 units has at most 2,000 code points, so only longer ones are walked.
const tooLong = (content: string): boolean =>
  content.length > ESTIMATOR_MAX_CONTENT_CHARS && [...content].length > ESTIMATOR_MAX_CONTENT_CHARS;

/**
 * The estimator's messages, or the spec's 400 for the first rule broken. The checks run in the
 * order of the spec's error table: the body and its `messages` array (absent, not an array or
 * empty), then the count, then each message in turn (item, role, content), so the first bad
 * message decides. Fields other than `role` and `content` are ignored.
 */
export function parseEstimatorRequest(body: unknown): EstimatorMessage[] {
  const messages = isObject(body) ? body.messages : undefined;
  // An empty conversation describes nothing to estimate, so it counts as no messages at all.
  if (!Array.isArray(messages) || messages.length === 0) throw invalid(MESSAGES.estimatorMessagesRequired);
  if (messages.length > ESTIMATOR_MAX_MESSAGES) throw invalid(MESSAGES.estimatorTooLong);
  return messages.map((item: unknown) => {
    if (!isObject(item)) throw invalid(MESSAGES.estimatorInvalidItem);
    const { role, content } = item;
    if (!isRole(role)) throw invalid(MESSAGES.estimatorInvalidRole);
    if (typeof content !== "string" || tooLong(content)) throw invalid(MESSAGES.estimatorInvalidContent);
    return { role, content };
  });
}
