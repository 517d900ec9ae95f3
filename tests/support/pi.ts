// pi (the `pi` CLI from @mariozechner/pi-coding-agent, a devDependency) run non-interactively
// against the gateway: `pi -p "<prompt>"` in a fresh home whose `~/.pi/agent/models.json`
// declares one custom provider, "gateway", speaking one of the APIs pi supports for custom
// models (docs/models.md in the package): openai-completions, openai-responses or
// anthropic-messages.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentCli, runAgent, type AgentRun } from "./agent-run.ts";

const MODULES = new URL("../../node_modules/", import.meta.url).pathname;

/** The `pi` bin: a Node script (dist/cli.js). */
export const PI = `${MODULES}.bin/pi`;

/** The environment variable models.json names as the gateway's key (`apiKey` names a variable). */
export const PI_KEY_ENV = "GATEWAY_API_KEY";

/** Whether `pi --version` runs; the reason when not. */
export const piCli = () => agentCli(PI, "npm ci installs @mariozechner/pi-coding-agent; it needs node on PATH");

export type PiApi = "openai-completions" | "openai-responses" | "anthropic-messages";

/**
 * The models.json a user writes: one provider, "gateway", at the gateway's base URL (`<gateway>/v1`
 * for the OpenAI APIs, the gateway's root for Anthropic's, whose SDK adds /v1/messages), its key
 * read from an environment variable, and the model.
 */
export function piModels(api: PiApi, gatewayUrl: string, model: string, reasoning: boolean): Record<string, unknown> {
  return {
    providers: {
      gateway: {
        baseUrl: api === "anthropic-messages" ? gatewayUrl : `${gatewayUrl}/v1`,
        api,
        apiKey: PI_KEY_ENV,
        models: [{ id: model, reasoning }],
      },
    },
  };
}

export interface PiRunOptions {
  api: PiApi;
  /** The gateway's root URL (no /v1). */
  gatewayUrl: string;
  secret: string;
  model: string;
  /** Whether the model thinks (models.json's `reasoning`). */
  reasoning: boolean;
  cwd: string;
  /** HOME for the run; pi's config is `${home}/.pi/agent`. */
  home: string;
  prompt: string;
  timeoutMs: number;
  extraArgs?: string[];
}

export interface PiRun extends AgentRun {
  models: Record<string, unknown>;
}

/** Writes models.json and runs `pi -p` once to completion, or SIGKILLs it after timeoutMs. */
export async function runPi(options: PiRunOptions): Promise<PiRun> {
  const agentDir = join(options.home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  const models = piModels(options.api, options.gatewayUrl, options.model, options.reasoning);
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.home,
    TMPDIR: options.home,
    [PI_KEY_ENV]: options.secret,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // No update checks, package checks or telemetry at startup.
    PI_OFFLINE: "1",
  };
  const args = [PI, "-p", "--provider", "gateway", "--model", options.model, "--no-session", ...(options.extraArgs ?? []), options.prompt];
  const run = await runAgent(args, { cwd: options.cwd, env, timeoutMs: options.timeoutMs });
  return { ...run, models };
}
