// Provider-run tools the operator sells (`HOSTED_TOOL_PRICES`, USD per call): a native request
// that offers one reserves `max_tool_calls` calls at its price beside its tokens, and is charged
// each call the provider reports (a `web_search_call` item and the like) on the same usage row.
import { nanos, ZERO, type Nanos } from "../money.ts";

export interface HostedTools {
  /** The sold tools this request offers, by type, at their price per call. */
  prices: ReadonlyMap<string, Nanos>;
  /** The most calls the provider may make (`max_tool_calls`, sent upstream). */
  maxCalls: number;
}

/** The calls the provider may make when the client sets no `max_tool_calls`. */
export const DEFAULT_MAX_TOOL_CALLS = 10;

/** What the reservation holds for the tools: the dearest one's price for every call allowed. */
export function hostedReserve(tools: HostedTools | undefined): Nanos {
  if (!tools) return ZERO;
  let dearest = ZERO;
  for (const price of tools.prices.values()) if (price > dearest) dearest = price;
  return nanos(dearest * BigInt(tools.maxCalls));
}

// An output item names the tool it is a call of: `<tool>_call`, but for the computer tool.
const CALL_OF: Record<string, string> = { computer_call: "computer_use" };

/** The provider-run tool calls among a Response's output items, counted by tool type. */
export function hostedCalls(output: unknown): Record<string, number> | undefined {
  if (!Array.isArray(output)) return undefined;
  let counts: Record<string, number> | undefined;
  for (const item of output as { type?: unknown }[]) {
    const type = typeof item?.type === "string" ? item.type : "";
    if (!type.endsWith("_call") || type === "function_call" || type === "custom_tool_call") continue;
    const tool = CALL_OF[type] ?? type.slice(0, -"_call".length);
    counts ??= {};
    counts[tool] = (counts[tool] ?? 0) + 1;
  }
  return counts;
}

/** What the reported calls cost: each sold tool's calls at its price, never more calls than were allowed. */
export function hostedCost(calls: Readonly<Record<string, number>> | undefined, tools: HostedTools | undefined): Nanos {
  if (!calls || !tools) return ZERO;
  let left = tools.maxCalls;
  let cost = ZERO;
  for (const [tool, count] of Object.entries(calls)) {
    const price = tools.prices.get(tool);
    if (price === undefined) continue;
    const charged = Math.min(count, left);
    left -= charged;
    cost = nanos(cost + price * BigInt(charged));
  }
  return cost;
}
