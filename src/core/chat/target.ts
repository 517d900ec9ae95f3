// Where one candidate of a request is sent: the model, the body its family takes, and the
// provider port in the API it is spoken to. A door that forwards natively reshapes the chat
// target for the models whose providers speak its API (responses/pipeline.ts, messages/pipeline.ts).
import type { Model } from "../catalog.ts";
import { upstreamBody, type UpstreamRequest } from "./families.ts";
import { outputCeiling } from "./price.ts";
import type { ChatProvider } from "./provider.ts";
import type { ChatRequest } from "./request.ts";

export interface Target {
  model: Model;
  /** Completion tokens per choice the provider is asked for at most: the client's, within the model's. */
  ceiling: number;
  /** What the provider is sent, and the client's fields its family left out. */
  upstream: UpstreamRequest;
  /** The provider port, speaking the API the body is in. */
  provider: ChatProvider;
  /** Forwarded in the door's own API (Responses, Messages) rather than translated to chat completions. */
  native: boolean;
}

/** How a request is sent to each of its candidates. */
export type Aim = (model: Model) => Target;

/** The chat completions target of `request` for `model`. */
export function chatTarget(request: ChatRequest, model: Model, provider: ChatProvider): Target {
  const ceiling = outputCeiling(request, model);
  return { model, ceiling, upstream: upstreamBody(request, model, ceiling), provider, native: false };
}
