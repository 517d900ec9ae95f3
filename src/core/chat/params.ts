// OpenAI's Chat Completions parameters beyond the spec's table, as data: each with its type
// and range (from OpenAI's API reference) and the words a 400 uses for it. They are validated
// before anything is reserved and forwarded when the model's family takes them (families.ts).
import { type TOptional, type TSchema, Type as T } from "@sinclair/typebox";

const text = (maxLength: number) => T.String({ maxLength });
const oneOf = (...values: string[]) => T.Union(values.map((v) => T.Literal(v)));

interface Param {
  schema: TSchema;
  rule: string;
}

export const OPENAI_PARAMS = {
  n: { schema: T.Integer({ minimum: 1, maximum: 8 }), rule: "must be an integer from 1 to 8" },
  logprobs: { schema: T.Boolean(), rule: "must be a boolean" },
  top_logprobs: { schema: T.Integer({ minimum: 0, maximum: 20 }), rule: "must be an integer from 0 to 20" },
  logit_bias: {
    schema: T.Record(T.String({ pattern: "^[0-9]+$" }), T.Number({ minimum: -100, maximum: 100 }), { maxProperties: 1024, additionalProperties: false }),
    rule: "must map token IDs to numbers from -100 to 100",
  },
  user: { schema: text(256), rule: "must be a string of at most 256 characters" },
  safety_identifier: { schema: text(256), rule: "must be a string of at most 256 characters" },
  prompt_cache_key: { schema: text(1024), rule: "must be a string of at most 1024 characters" },
  metadata: {
    schema: T.Record(T.String({ maxLength: 64 }), text(512), { maxProperties: 16 }),
    rule: "must be an object of at most 16 string values (keys up to 64 characters, values up to 512)",
  },
  store: { schema: T.Boolean(), rule: "must be a boolean" },
  parallel_tool_calls: { schema: T.Boolean(), rule: "must be a boolean" },
  reasoning_effort: {
    schema: oneOf("none", "minimal", "low", "medium", "high", "xhigh"),
    rule: "must be one of none, minimal, low, medium, high, xhigh",
  },
  verbosity: { schema: oneOf("low", "medium", "high"), rule: "must be one of low, medium, high" },
  service_tier: {
    schema: oneOf("auto", "default", "flex", "scale", "priority"),
    rule: "must be one of auto, default, flex, scale, priority",
  },
  modalities: {
    schema: T.Array(oneOf("text", "audio"), { minItems: 1, maxItems: 2 }),
    rule: "must be an array of \"text\" and \"audio\"",
  },
  audio: {
    schema: T.Object({ voice: T.Union([T.String({ maxLength: 64 }), T.Object({ id: T.String({ maxLength: 128 }) })]), format: oneOf("wav", "aac", "mp3", "flac", "opus", "pcm16") }),
    rule: "must be {voice, format} with format one of wav, aac, mp3, flac, opus, pcm16",
  },
  prediction: {
    schema: T.Object({ type: T.Literal("content"), content: T.Union([T.String(), T.Array(T.Object({}), { maxItems: 50 })]) }),
    rule: "must be {type: \"content\", content: string or array of parts}",
  },
  web_search_options: {
    schema: T.Object({ search_context_size: T.Optional(oneOf("low", "medium", "high")), user_location: T.Optional(T.Union([T.Object({}), T.Null()])) }),
    rule: "must be {search_context_size?: low | medium | high, user_location?: object}",
  },
  // The gateway always asks providers for usage in streams; what the client set is read, not forwarded.
  stream_options: {
    schema: T.Object({ include_usage: T.Optional(T.Boolean()), include_obfuscation: T.Optional(T.Boolean()) }),
    rule: "must be {include_usage?: boolean, include_obfuscation?: boolean}",
  },
} as const satisfies Record<string, Param>;

type OpenAiParam = keyof typeof OPENAI_PARAMS;

/** The table as optional TypeBox properties, for the request schema. */
export const openAiParamProperties = () =>
  Object.fromEntries(Object.entries(OPENAI_PARAMS).map(([name, p]) => [name, T.Optional(p.schema)])) as {
    [K in OpenAiParam]: TOptional<(typeof OPENAI_PARAMS)[K]["schema"]>;
  };

/** The fields forwarded as they are when the family takes them (stream_options is the gateway's own). */
export const FORWARDABLE_PARAMS = (Object.keys(OPENAI_PARAMS) as OpenAiParam[]).filter(
  (p): p is Exclude<OpenAiParam, "stream_options"> => p !== "stream_options",
);
