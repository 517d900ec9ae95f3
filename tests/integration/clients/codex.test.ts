// Codex CLI itself (`codex exec` from @openai/codex, a devDependency) run in its default
// configuration against the gateway's /v1/responses, on three models that each exercise what
// Codex sends (tests/fixtures/codex/ has it verbatim):
// - gpt-5.4, native and unknown to Codex: function tools (exec_command), a `namespace` tool and
//   the hosted `web_search`, which the gateway leaves out and names in x-gateway-dropped-params;
// - gpt-5.5, native and in Codex's catalog: the freeform `custom` tool apply_patch (Lark grammar);
// - deepseek-v4-pro, translated to chat completions in DeepSeek's thinking mode: the reasoning
//   the gateway seals into the reasoning item must come back as `reasoning_content`, or the
//   provider answers 400.
// The fake provider answers the agent loop with one tool call, then "Done." once the tool's
// output comes back, and any other call with short text. The file must be written, the run must
// succeed, and the account must be charged exactly the usage the fake reported for each call,
// with nothing left reserved. Skipped, with the reason printed, when Codex's binary does not run.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fundedKey } from "../../support/accounts.ts";
import { carriesToolResult, driveAgent, expectChargedExactly, expectFinished, startRecordingProxy, toolNames, type Exchange } from "../../support/agent-run.ts";
import { codexCli, runCodex } from "../../support/codex.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider, type Script } from "../../support/fake-responses.ts";
import { responsesEnv } from "../../support/responses.ts";
import { useGateway } from "../../support/server.ts";

const RUN_TIMEOUT_MS = 90_000;
// Sealing reasoning needs the deployment's key on Postgres (SQLite would make a key file).
const SECRET_KEY = "5eed".repeat(16);

const cli = codexCli();
if (!cli.ok) console.log(`skipping the Codex CLI tests: ${cli.reason}`);

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

type Fields = Record<string, any>;

interface Case {
  model: string;
  tool: string;
  step: (n: number) => Pick<Script, "call" | "custom" | "reasoning">;
  /** What else to check of the run: the recorded exchanges and what the fake was sent. */
  check: (exchanges: Exchange[], forwarded: typeof fake.received) => void;
}

const responsesBodies = (forwarded: typeof fake.received) => forwarded.filter((f) => f.path === "/v1/responses").map((f) => f.body);

const CASES: Case[] = [
  {
    model: "gpt-5.4",
    tool: "exec_command",
    step: (n) => ({ call: { call_id: `call_exec_${n}`, name: "exec_command", arguments: JSON.stringify({ cmd: "echo hi > hello.txt" }) } }),
    check: (exchanges, forwarded) => {
      const bodies = responsesBodies(forwarded);
      expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies) {
        const types = (body.tools as Fields[]).map((t) => t.type);
        // Natively every client-run tool is forwarded as sent; the provider-run web_search is left out.
        expect(types).not.toContain("web_search");
        expect(body.tools as Fields[]).toContainEqual(expect.objectContaining({ type: "namespace", name: "multi_agent_v1" }));
        expect(toolNames(body)).toContain("exec_command");
      }
      const turns = exchanges.filter((e) => e.method === "POST" && e.path === "/v1/responses");
      expect(turns.length).toBeGreaterThan(0);
      for (const e of turns) expect((e.answerHeaders["x-gateway-dropped-params"] ?? "").split(",").map((s) => s.trim())).toContain("tools.web_search");
    },
  },
  {
    model: "gpt-5.5",
    tool: "apply_patch",
    step: (n) => ({ custom: { call_id: `call_patch_${n}`, name: "apply_patch", input: "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n" } }),
    check: (_exchanges, forwarded) => {
      const bodies = responsesBodies(forwarded);
      expect(bodies[0]!.tools as Fields[]).toContainEqual(expect.objectContaining({ type: "custom", name: "apply_patch" }));
      // The patch's output came back as a custom_tool_call_output for the call the fake made.
      const last = bodies.at(-1)!;
      expect(last.input as Fields[]).toContainEqual(expect.objectContaining({ type: "custom_tool_call_output", call_id: expect.stringMatching(/^call_patch_/) }));
    },
  },
  {
    model: "deepseek-v4-pro",
    tool: "exec_command",
    step: (n) => ({ reasoning: "I should run a command.", call: { call_id: `call_exec_${n}`, name: "exec_command", arguments: JSON.stringify({ cmd: "echo hi > hello.txt" }) } }),
    check: (_exchanges, forwarded) => {
      const chats = forwarded.filter((f) => f.path === "/v1/chat/completions").map((f) => f.body);
      expect(chats.every((b) => b.model === "deepseek-v4-pro")).toBe(true);
      const second = chats.find(carriesToolResult);
      expect(second, "no chat request carried the tool's output").toBeDefined();
      const assistant = (second!.messages as Fields[]).find((m) => m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0);
      expect(assistant).toMatchObject({ reasoning_content: "I should run a command.", tool_calls: [expect.objectContaining({ function: expect.objectContaining({ name: "exec_command" }) })] });
    },
  },
];

describeEachDialect("Codex CLI", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), SECRET_KEY });
  const proxy = startRecordingProxy(() => gateway().url);
  afterAll(() => proxy.stop());

  test.skipIf(!cli.ok).each(CASES.map((c) => [c.model, c] as const))(
    "%s: codex exec writes hello.txt through the gateway, charged exactly the provider's usage",
    async (model, c) => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), "codex-cwd-")));
      const home = realpathSync(mkdtempSync(join(tmpdir(), "codex-home-")));
      const file = join(cwd, "hello.txt");
      fake.thinking(["deepseek-v4-pro"]);
      const answers = driveAgent(fake, c.tool, c.step);
      const { secret, account } = await fundedKey(gateway().store, "5");
      const from = proxy.exchanges.length;
      const sentFrom = fake.received.length;
      try {
        const run = await runCodex({ baseUrl: `${proxy.url}/v1`, secret, model, cwd, home, prompt: "create hello.txt containing hi", timeoutMs: RUN_TIMEOUT_MS });
        const exchanges = proxy.exchanges.slice(from);
        const forwarded = fake.received.slice(sentFrom);
        if (process.env.CODEX_TEST_VERBOSE) console.log(JSON.stringify({ model, run, exchanges, answers, forwarded }, null, 2));
        const context = expectFinished(run, exchanges, answers);
        expect(readFileSync(file, "utf8").trim(), context).toBe("hi");
        expect(run.stdout, context).toContain("Done.");
        c.check(exchanges, forwarded);
        await expectChargedExactly(gateway(), account.id, model, answers);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
