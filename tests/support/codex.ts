// Codex CLI (the `codex` binary from @openai/codex, a devDependency) run non-interactively
// against the gateway's Responses door: `codex exec` in its default configuration, a fresh home
// and one custom provider pointed at the gateway. What it sends is recorded in
// tests/fixtures/codex/ (README.md there says how).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { agentCli, runAgent, type AgentRun } from "./agent-run.ts";

const MODULES = new URL("../../node_modules/", import.meta.url).pathname;

// The npm package's bin/codex.js is a Node wrapper that, on Node < 22.15, spawns the native binary
// as a child instead of exec'ing it: a SIGKILL to the wrapper would orphan Codex. So run the
// native binary (from the per-platform optional dependency) directly, as the wrapper would.
const TARGETS: Record<string, [string, string]> = {
  "linux-x64": ["@openai/codex-linux-x64", "x86_64-unknown-linux-musl"],
  "linux-arm64": ["@openai/codex-linux-arm64", "aarch64-unknown-linux-musl"],
  "darwin-x64": ["@openai/codex-darwin-x64", "x86_64-apple-darwin"],
  "darwin-arm64": ["@openai/codex-darwin-arm64", "aarch64-apple-darwin"],
};
const target = TARGETS[`${process.platform}-${process.arch}`];

/** The native `codex` binary for this machine. */
export const CODEX = target ? `${MODULES}${target[0]}/vendor/${target[1]}/bin/codex` : `${MODULES}.bin/codex`;

/** The environment variable Codex reads the gateway key from (the provider's `env_key`). */
export const CODEX_KEY_ENV = "CODEX_GATEWAY_KEY";

/** Whether `codex --version` runs; the reason when not. */
export const codexCli = () => agentCli(CODEX, `npm ci installs @openai/codex and its native ${target?.[0] ?? "package"}`);

export interface CodexRunOptions {
  /** The gateway's OpenAI base, ending in /v1: Codex posts to `${baseUrl}/responses`. */
  baseUrl: string;
  secret: string;
  model: string;
  /** The workspace: Codex may write here (its workspace-write sandbox), and nowhere else but /tmp. */
  cwd: string;
  /** HOME for the run; CODEX_HOME is `${home}/.codex`, created here (Codex refuses a missing one). */
  home: string;
  prompt: string;
  timeoutMs: number;
  /** More `codex exec` arguments, before the prompt (e.g. `["--json"]` for JSONL events on stdout). */
  extraArgs?: string[];
}

export type CodexRun = AgentRun;

/** The `codex exec` command line: one custom provider, the model, no approvals, the workspace writable. */
export function codexArgs(options: Pick<CodexRunOptions, "baseUrl" | "model" | "prompt" | "extraArgs">): string[] {
  return [
    CODEX, "exec",
    "--skip-git-repo-check",
    "--color", "never",
    // `codex exec` never asks for approval; workspace-write lets the shell tool write in cwd (the
    // default, read-only, runs commands but fails their writes).
    "--sandbox", "workspace-write",
    "-c", "model_provider=gateway",
    "-c", 'model_providers.gateway.name="gateway"',
    "-c", `model_providers.gateway.base_url=${JSON.stringify(options.baseUrl)}`,
    "-c", `model_providers.gateway.env_key="${CODEX_KEY_ENV}"`,
    // No analytics (turn metadata then says analytics_enabled: false) and no update check.
    "-c", "analytics.enabled=false",
    "-c", "check_for_update_on_startup=false",
    "-m", options.model,
    ...(options.extraArgs ?? []),
    "--", options.prompt,
  ];
}

/** Runs `codex exec` once to completion, or SIGKILLs it after timeoutMs. */
export async function runCodex(options: CodexRunOptions): Promise<CodexRun> {
  const codexHome = join(options.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.home,
    CODEX_HOME: codexHome,
    [CODEX_KEY_ENV]: options.secret,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // What bin/codex.js sets for the binary it starts.
    CODEX_MANAGED_BY_NPM: "1",
    CODEX_MANAGED_PACKAGE_ROOT: `${MODULES}@openai/codex`,
  };
  return runAgent(codexArgs(options), { cwd: options.cwd, env, timeoutMs: options.timeoutMs });
}
