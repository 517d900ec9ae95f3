// opencode (the `opencode` binary from opencode-ai, a devDependency) run non-interactively
// against the gateway: `opencode run "<prompt>"` in a fresh home whose global config
// (`$XDG_CONFIG_HOME/opencode/opencode.json`) declares one custom provider, "gateway", pointed at
// the gateway through one of the AI SDK providers opencode bundles in its binary.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentCli, runAgent, type AgentRun } from "./agent-run.ts";

const MODULES = new URL("../../node_modules/", import.meta.url).pathname;

// opencode-ai's postinstall hard-links the native binary of this platform's optional dependency
// (opencode-linux-x64, ...) to bin/opencode.exe, which node_modules/.bin/opencode points at.
export const OPENCODE = `${MODULES}.bin/opencode`;

/** The environment variable the config's `{env:...}` reads the gateway key from. */
export const OPENCODE_KEY_ENV = "GATEWAY_API_KEY";

/** Whether `opencode --version` runs; the reason when not. */
export const opencodeCli = () => agentCli(OPENCODE, "npm ci installs opencode-ai and its native package");

/** Which of opencode's bundled AI SDK providers talks to the gateway, and so which door. */
export type OpencodeSdk = "@ai-sdk/openai-compatible" | "@ai-sdk/openai" | "@ai-sdk/anthropic";

/**
 * The config a user writes: one provider, "gateway", with the gateway's base URL and key and the
 * model to use; edits and shell commands allowed without asking (`opencode run` cannot ask).
 */
export function opencodeConfig(sdk: OpencodeSdk, baseUrl: string, model: string): Record<string, unknown> {
  return {
    $schema: "https://opencode.ai/config.json",
    model: `gateway/${model}`,
    small_model: `gateway/${model}`,
    autoupdate: false,
    share: "disabled",
    permission: { edit: "allow", bash: "allow" },
    provider: {
      gateway: {
        npm: sdk,
        name: "Gateway",
        options: { baseURL: baseUrl, apiKey: `{env:${OPENCODE_KEY_ENV}}` },
        models: { [model]: { name: model, tool_call: true } },
      },
    },
  };
}

export interface OpencodeRunOptions {
  sdk: OpencodeSdk;
  /** The gateway's base: `<gateway>/v1` for the OpenAI SDKs and the Anthropic one alike. */
  baseUrl: string;
  secret: string;
  model: string;
  cwd: string;
  /** HOME for the run; the XDG directories are under it. */
  home: string;
  prompt: string;
  timeoutMs: number;
  /**
   * The npm registry opencode is pointed at (~/.npmrc and npm_config_registry): at every start it
   * installs @opencode-ai/plugin into its global config directory in the background, from the
   * registry. Tests give it a local one that answers 404, so that nothing is downloaded.
   */
  registry: string;
  extraArgs?: string[];
}

export interface OpencodeRun extends AgentRun {
  config: Record<string, unknown>;
}

/** A stand-in npm registry on loopback: it records what is asked of it and answers 404. */
export function startRegistryTrap() {
  const asked: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      asked.push(`${request.method} ${new URL(request.url).pathname}`);
      return Response.json({ error: "Not found" }, { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, asked, stop: () => server.stop(true) };
}

/** Writes the config and runs `opencode run` once to completion, or SIGKILLs it after timeoutMs. */
export async function runOpencode(options: OpencodeRunOptions): Promise<OpencodeRun> {
  const xdg = { config: join(options.home, ".config"), data: join(options.home, ".local/share"), cache: join(options.home, ".cache"), state: join(options.home, ".local/state") };
  for (const dir of Object.values(xdg)) mkdirSync(dir, { recursive: true });
  const config = opencodeConfig(options.sdk, options.baseUrl, options.model);
  mkdirSync(join(xdg.config, "opencode"), { recursive: true });
  writeFileSync(join(xdg.config, "opencode", "opencode.json"), JSON.stringify(config, null, 2));
  writeFileSync(join(options.home, ".npmrc"), `registry=${options.registry}\n`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.home,
    XDG_CONFIG_HOME: xdg.config,
    XDG_DATA_HOME: xdg.data,
    XDG_CACHE_HOME: xdg.cache,
    XDG_STATE_HOME: xdg.state,
    TMPDIR: options.home,
    [OPENCODE_KEY_ENV]: options.secret,
    npm_config_registry: options.registry,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // Offline: no models.dev catalog, no update check, no plugins or LSP servers to download.
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    ...(process.env.OPENCODE_TEST_LOGS ? { OPENCODE_PRINT_LOGS: "1", OPENCODE_LOG_LEVEL: "DEBUG" } : {}),
  };
  const run = await runAgent([OPENCODE, "run", ...(options.extraArgs ?? []), options.prompt], { cwd: options.cwd, env, timeoutMs: options.timeoutMs });
  return { ...run, config };
}
