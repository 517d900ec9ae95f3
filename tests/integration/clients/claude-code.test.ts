// Claude Code itself (the `claude` CLI from @anthropic-ai/claude-code, a devDependency) run
// non-interactively against the gateway's /v1/messages, on a native (DeepSeek's Anthropic API)
// and a translated (OpenAI) model: the fake provider answers its agent loop with a Write
// tool_use, then "Done." once the tool_result comes back, and every other call it makes
// (titles, quota checks, the small model) with short text. The file must be written, the run
// must succeed, and the account must be charged exactly the usage the fake reported for each
// call. Skipped, with the reason printed, when the CLI's native binary is not installed.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fundedKey } from "../../support/accounts.ts";
import { agentCli, driveAgent, expectChargedExactly, expectFinished, runAgent, startRecordingProxy, type AgentRun } from "../../support/agent-run.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider } from "../../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, messagesEnv } from "../../support/messages.ts";
import { useGateway } from "../../support/server.ts";

const CLAUDE = new URL("../../../node_modules/.bin/claude", import.meta.url).pathname;
const RUN_TIMEOUT_MS = 90_000;

const cli = agentCli(CLAUDE, "npm ci installs it");
if (!cli.ok) console.log(`skipping the Claude Code tests: ${cli.reason}`);

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());


async function runClaude(baseUrl: string, secret: string, model: string, cwd: string, home: string): Promise<AgentRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    TMPDIR: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_AUTH_TOKEN: secret,
    ANTHROPIC_MODEL: model,
    ANTHROPIC_SMALL_FAST_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: model,
    CLAUDE_CODE_SUBAGENT_MODEL: model,
    // Nothing but the API calls themselves: no updater, telemetry, error reports, feedback or other extras.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    DO_NOT_TRACK: "1",
    NO_PROXY: "127.0.0.1,localhost",
    CI: "1",
  };
  return runAgent(
    [CLAUDE, "-p", "Write hello.txt containing hi", "--output-format", "json", "--allowedTools", "Write", "--permission-mode", "acceptEdits", "--max-turns", "5"],
    { cwd, env, timeoutMs: RUN_TIMEOUT_MS },
  );
}

describeEachDialect("Claude Code", (dialect) => {
  const gateway = useGateway(dialect, messagesEnv(fake));
  const proxy = startRecordingProxy(() => gateway().url);
  afterAll(() => proxy.stop());

  test.skipIf(!cli.ok).each([ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED])(
    "%s: claude -p writes hello.txt through the gateway, charged exactly the provider's usage",
    async (model) => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), "claude-code-cwd-")));
      const home = realpathSync(mkdtempSync(join(tmpdir(), "claude-code-home-")));
      const file = join(cwd, "hello.txt");
      const answers = driveAgent(fake, "Write", (n) => ({ call: { call_id: `toolu_write_${n}`, name: "Write", arguments: JSON.stringify({ file_path: file, content: "hi" }) } }));
      const { secret, account } = await fundedKey(gateway().store, "5");
      const from = proxy.exchanges.length;
      const sentFrom = fake.received.length;
      try {
        const run = await runClaude(proxy.url, secret, model, cwd, home);
        const exchanges = proxy.exchanges.slice(from);
        if (process.env.CLAUDE_CODE_TEST_VERBOSE) console.log(JSON.stringify({ model, run, exchanges, answers, forwarded: fake.received.slice(sentFrom) }, null, 2));
        const context = expectFinished(run, exchanges, answers);
        const result = JSON.parse(run.stdout);
        expect(result, context).toMatchObject({ type: "result", subtype: "success", is_error: false });
        expect(readFileSync(file, "utf8")).toBe("hi");
        expect(String(result.result)).toContain("Done.");
        await expectChargedExactly(gateway(), account.id, model, answers);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
