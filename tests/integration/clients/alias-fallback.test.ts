// Clients that name one model, pointed at an operator's alias whose first model's provider is
// down (OpenAI's refuses connections): Claude Code (`ANTHROPIC_MODEL=agent`) and the openai SDK
// run on, served and charged by the alias's next model, which the answers name.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fundedKey } from "../../support/accounts.ts";
import { agentCli, driveAgent, expectChargedExactly, expectFinished, runAgent, startRecordingProxy } from "../../support/agent-run.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider } from "../../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, messagesEnv } from "../../support/messages.ts";
import { client, costOf } from "../../support/responses.ts";
import { useGateway } from "../../support/server.ts";
import { waitFor } from "../../support/wait.ts";

const CLAUDE = new URL("../../../node_modules/.bin/claude", import.meta.url).pathname;
const RUN_TIMEOUT_MS = 90_000;
const cli = agentCli(CLAUDE, "npm ci installs it");
if (!cli.ok) console.log(`skipping the Claude Code alias test: ${cli.reason}`);

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

const ALIAS = "agent";
const DOWN = "gpt-4.1";
// DeepSeek's: forwarded to its Anthropic API on /v1/messages, translated on the OpenAI doors.
const SERVING = ANTHROPIC_NATIVE;

describeEachDialect("clients on an alias whose first model's provider is down", (dialect) => {
  const gateway = useGateway(dialect, { ...messagesEnv(fake), OPENAI_BASE_URL: "http://127.0.0.1:1/v1" });
  const proxy = startRecordingProxy(() => gateway().url);
  afterAll(() => proxy.stop());
  beforeAll(async () => {
    await gateway().store.saveAlias({ name: ALIAS, models: [DOWN, SERVING] }, Date.now());
    // The catalog's copy is reloaded within seconds: the alias is waited for.
    await waitFor(async () => {
      const listed = (await (await fetch(`${gateway().url}/v1/models/${ALIAS}`)).json()) as { id?: string };
      return listed.id === ALIAS;
    }, "the alias to be served", 8_000, 100);
  });

  test.skipIf(!cli.ok)("Claude Code with ANTHROPIC_MODEL set to the alias writes its file, charged at the serving model's prices", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "claude-alias-cwd-")));
    const home = realpathSync(mkdtempSync(join(tmpdir(), "claude-alias-home-")));
    const file = join(cwd, "hello.txt");
    const answers = driveAgent(fake, "Write", (n) => ({ call: { call_id: `toolu_write_${n}`, name: "Write", arguments: JSON.stringify({ file_path: file, content: "hi" }) } }));
    const { secret, account } = await fundedKey(gateway().store, "5");
    const from = proxy.exchanges.length;
    try {
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), TMPDIR: home,
        ANTHROPIC_BASE_URL: proxy.url, ANTHROPIC_AUTH_TOKEN: secret,
        ANTHROPIC_MODEL: ALIAS, ANTHROPIC_SMALL_FAST_MODEL: ALIAS, ANTHROPIC_DEFAULT_HAIKU_MODEL: ALIAS,
        ANTHROPIC_DEFAULT_SONNET_MODEL: ALIAS, ANTHROPIC_DEFAULT_OPUS_MODEL: ALIAS, CLAUDE_CODE_SUBAGENT_MODEL: ALIAS,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1",
        DISABLE_BUG_COMMAND: "1", DO_NOT_TRACK: "1", NO_PROXY: "127.0.0.1,localhost", CI: "1",
      };
      const run = await runAgent(
        [CLAUDE, "-p", "Write hello.txt containing hi", "--output-format", "json", "--allowedTools", "Write", "--permission-mode", "acceptEdits", "--max-turns", "5"],
        { cwd, env, timeoutMs: RUN_TIMEOUT_MS },
      );
      const context = expectFinished(run, proxy.exchanges.slice(from), answers);
      expect(JSON.parse(run.stdout), context).toMatchObject({ type: "result", subtype: "success", is_error: false });
      expect(readFileSync(file, "utf8")).toBe("hi");
      // Every call served by the alias's second model, at its prices, the alias kept as what was asked for.
      await expectChargedExactly(gateway(), account.id, SERVING, answers);
      const rows = await gateway().store.usageLogPage(account.id, null, 100);
      expect([...new Set(rows.map((r) => r.requestedModel))]).toEqual([ALIAS]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  }, RUN_TIMEOUT_MS + 30_000);

  test("the openai SDK on the alias: chat (plain and streamed) and responses are served and named by the next model", async () => {
    fake.script(() => ({ text: "Hi there", usage: { input: 20, output: 5 } }));
    const { secret, account } = await fundedKey(gateway().store, "5");
    const openai = client(gateway().url, secret);
    const { data: chat, response } = await openai.chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect({ model: chat.model, header: response.headers.get("x-gateway-model"), text: chat.choices[0]?.message.content }).toEqual({ model: SERVING, header: SERVING, text: "Hi there" });
    const stream = await openai.chat.completions.create({ model: ALIAS, messages: [{ role: "user", content: "hi" }], stream: true });
    const models = new Set<string>();
    for await (const chunk of stream) models.add(chunk.model);
    expect([...models]).toEqual([SERVING]);
    const answered = await openai.responses.create({ model: ALIAS, input: "hi", store: false });
    expect({ model: answered.model, text: answered.output_text }).toEqual({ model: SERVING, text: "Hi there" });
    const rows = await gateway().store.usageLogPage(account.id, null, 10);
    expect(rows.map((r) => [r.model, r.requestedModel, r.status, r.cost])).toEqual(Array(3).fill([SERVING, ALIAS, "success", costOf(SERVING, 20, 5)]));
  });
});
