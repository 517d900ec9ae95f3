// The Responses API's tools (platform.openai.com/docs/api-reference/responses/create, `tools`),
// of every type: no request fails because of a tool's type. Natively every tool is forwarded as
// sent, except the ones the provider itself runs (`web_search`, `file_search`, …), which are
// left out and named unless the operator sells them. Translated to chat completions, `function`
// tools stay as they are, `custom` tools (freeform text, such as Codex's `apply_patch`) become
// functions taking one string, and a `namespace`'s tools become functions named by the namespace
// and their own name; their calls are written back as OpenAI writes them (tool-names.ts).
import { Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "../errors.ts";

type Fields = Record<string, unknown>;

const name = T.String({ minLength: 1, maxLength: 128 });
const description = T.Optional(T.Union([T.String({ maxLength: 65_536 }), T.Null()]));

const FunctionTool = T.Object({
  type: T.Literal("function"),
  name: T.String({ minLength: 1, maxLength: 64 }),
  description,
  parameters: T.Optional(T.Union([T.Object({}), T.Null()])),
  strict: T.Optional(T.Union([T.Boolean(), T.Null()])),
});

// Freeform input, unconstrained (`format: {type: "text"}`) or held to a grammar (`{type: "grammar", syntax, definition}`).
const CustomTool = T.Object({ type: T.Literal("custom"), name, description, format: T.Optional(T.Union([T.Object({}), T.Null()])) });

const NamespaceTool = T.Object({ type: T.Literal("namespace"), name, description, tools: T.Array(T.Union([FunctionTool, CustomTool]), { minItems: 1, maxItems: 128 }) });

const CHECKS = {
  function: { check: TypeCompiler.Compile(FunctionTool), shape: "{type: \"function\", name, description?, parameters?, strict?}" },
  custom: { check: TypeCompiler.Compile(CustomTool), shape: "{type: \"custom\", name, description?, format?}" },
  namespace: { check: TypeCompiler.Compile(NamespaceTool), shape: "{type: \"namespace\", name, description?, tools: [function or custom tools]}" },
} as const;

/** Whether `type` is a tool the client's own code runs (every other type the provider runs). */
export const clientTool = (type: unknown): type is keyof typeof CHECKS => type === "function" || type === "custom" || type === "namespace";

/** Checks the client-run tools' shapes (a provider-run tool is the provider's to judge), or a 400 naming the tool. */
export function checkTools(tools: readonly Fields[]): void {
  tools.forEach((tool, i) => {
    if (!clientTool(tool.type)) return;
    const { check, shape } = CHECKS[tool.type];
    if (!check.Check(tool)) throw new AppError("invalid_request_error", `Invalid request: tools[${i}] must be ${shape}`);
  });
}

/** The name a tool chat has no place for is left out under, in `x-gateway-dropped-params`. */
export const droppedToolName = (tool: Fields): string => `tools.${String(tool.type)}`;

export interface ToolSelection {
  /** The tools sent to the provider. */
  kept: Fields[];
  /** Provider-run tools left out, as `droppedToolName` names them. */
  dropped: string[];
}

/**
 * The tools a native request forwards: every client-run tool, and the provider-run ones the
 * operator sells (`sold`: their types); the others are left out and named.
 */
export function nativeTools(tools: readonly Fields[], sold: { has(type: string): boolean }): ToolSelection {
  const kept: Fields[] = [];
  const dropped: string[] = [];
  for (const tool of tools) {
    // `execution: "client"` (Codex's `tool_search`): a tool of the provider's API that the client runs.
    if (clientTool(tool.type) || tool.execution === "client" || sold.has(String(tool.type))) kept.push(tool);
    else dropped.push(droppedToolName(tool));
  }
  return { kept, dropped: [...new Set(dropped)] };
}
