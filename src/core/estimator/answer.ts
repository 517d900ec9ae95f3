import type { Model } from "../catalog.ts";
import { AppError, MESSAGES } from "../errors.ts";
import { estimateUsage } from "./estimate.ts";
import { estimatorSystemPrompt } from "./prompt.ts";
import type { EstimatorMessage } from "./request.ts";
import { renderEstimate } from "./text.ts";

/**
 * Caps what one estimator answer may cost the operator: the endpoint is public. Generous
 * enough that a reasoning model still has room for its visible answer.
 */
export const ESTIMATOR_MAX_OUTPUT_TOKENS = 4_000;

export interface ChatTurn {
  role: string;
  content: string;
}

/**
 * One non-streaming completion: the text of `model`'s answer. Rejects on any failure (network,
 * upstream status, malformed body) and stops when `signal` aborts.
 */
export type AskModel = (
  model: Model,
  messages: readonly ChatTurn[],
  options: { signal: AbortSignal; maxOutputTokens: number },
) => Promise<string>;

export interface EstimatorInput {
  messages: readonly EstimatorMessage[];
  /** Enabled models with their prices: the live catalog, or the fallback registry. Never empty. */
  catalog: readonly Model[];
  /** The SDK base address named in the answer, `{base_url}/v1`. */
  sdkBaseUrl: string;
  /** ESTIMATOR_MODEL; null answers with the deterministic estimate. */
  estimatorModelId: string | null;
  askModel: AskModel;
  /** Starts the model call's clock: the signal aborts when its time is up. */
  startDeadline: () => AbortSignal;
  /** Told why the model's answer is not used and the deterministic estimate is. */
  onFallback: (reason: string, error?: unknown) => void;
}

/** Settles as `work` does, or rejects as soon as `signal` aborts, whether or not `work` heeds it. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

/**
 * The estimator's answer text. With an estimator model: its answer, or 504 when it runs out of
 * time; any other failure (model not in the catalog, upstream error, malformed or empty answer)
 * falls back to the deterministic estimate, as the spec's fallback rule says.
 */
export async function answerEstimator(input: EstimatorInput): Promise<string> {
  const { messages, catalog, sdkBaseUrl, estimatorModelId } = input;
  const deterministic = () => renderEstimate(estimateUsage(messages, catalog), sdkBaseUrl);
  if (estimatorModelId === null) return deterministic();

  const model = catalog.find((m) => m.id === estimatorModelId);
  if (!model) {
    input.onFallback(`estimator model ${estimatorModelId} is not an enabled catalog model`);
    return deterministic();
  }
  const deadline = input.startDeadline();
  try {
    const turns = [{ role: "system", content: estimatorSystemPrompt(catalog, sdkBaseUrl) }, ...messages];
    const call = input.askModel(model, turns, { signal: deadline, maxOutputTokens: ESTIMATOR_MAX_OUTPUT_TOKENS });
    const answer = await untilAborted(call, deadline);
    if (answer.trim() === "") throw new Error("the estimator model answered with no text");
    return answer;
  } catch (error) {
    if (deadline.aborted) throw new AppError("timeout", MESSAGES.estimatorTimedOut);
    input.onFallback("estimator model call failed", error);
    return deterministic();
  }
}
