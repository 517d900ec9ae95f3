// opencode itself (`opencode run` from opencode-ai, a devDependency) run non-interactively, as a
// user configures it, against the gateway: one custom provider in its config through one of the
// AI SDK providers bundled in its binary, so nothing is downloaded at run time.
// The fake provider answers the agent loop with one call of opencode's own `write` tool, then
// "Done." once the tool's output comes back, and any other call (the session's title) with short
// text. The file must be written, the run must succeed, and the account must be charged exactly
// the usage the fake reported for each call, with nothing left reserved. Skipped, with the reason
// printed, when opencode's binary does not run. OPENCODE_TEST_VERBOSE=1 prints every exchange.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fundedKey } from "../../support/accounts.ts";
import { driveAgent, expectChargedExactly, expectFinished, REASONING, reasoningCameBack, startRecordingProxy, type Exchange } from "../../support/agent-run.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider } from "../../support/fake-responses.ts";
import { opencodeCli, runOpencode, startRegistryTrap, type OpencodeSdk } from "../../support/opencode.ts";
import { responsesEnv } from "../../support/responses.ts";
import { useGateway } from "../../support/server.ts";

// opencode takes 30 to 70 s a run on a loaded 2-core machine.
const RUN_TIMEOUT_MS = 150_000;
// Sealing reasoning needs the deployment's key on Postgres (SQLite would make a key file).
const SECRET_KEY = "0dec".repeat(16);

const cli = opencodeCli();
if (!cli.ok) console.log(`skipping the opencode tests: ${cli.reason}`);

const fake = startFakeResponsesProvider();
const registry = startRegistryTrap();
afterAll(() => {
  fake.stop();
  registry.stop();
});

type Fields = Record<string, any>;

interface Case {
  name: string;
  sdk: OpencodeSdk;
  model: string;
  /** The gateway path opencode posts to. */
  door: string;
  /** The file-writing tool opencode offers this model, and its arguments to write `file`. */
  tool: string;
  args: (file: string) => Record<string, unknown>;
  /** What else to check of what the client sent and the fake was sent. */
  check?: (exchanges: Exchange[], forwarded: typeof fake.received) => void;
}

const THINKING = "deepseek-v4-pro";

// opencode offers most models `write`; GPT models (gpt-*, not gpt-4) get `apply_patch` instead.
const write = { tool: "write", args: (file: string) => ({ filePath: file, content: "hi" }) };
const applyPatch = { tool: "apply_patch", args: () => ({ patchText: "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch" }) };

const CASES: Case[] = [
  { name: "chat completions (@ai-sdk/openai-compatible)", sdk: "@ai-sdk/openai-compatible", model: THINKING, door: "/v1/chat/completions", ...write, check: reasoningCameBack },
  { name: "Responses (@ai-sdk/openai)", sdk: "@ai-sdk/openai", model: "gpt-5.4", door: "/v1/responses", ...applyPatch },
  { name: "Messages (@ai-sdk/anthropic)", sdk: "@ai-sdk/anthropic", model: THINKING, door: "/v1/messages", ...write, check: reasoningCameBack },
];

describeEachDialect("opencode", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), SECRET_KEY });
  const proxy = startRecordingProxy(() => gateway().url);
  afterAll(() => proxy.stop());

  test.skipIf(!cli.ok).each(CASES.map((c) => [`${c.model} over ${c.name}`, c] as const))(
    "%s: opencode run writes hello.txt through the gateway, charged exactly the provider's usage",
    async (_name, c) => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), "opencode-cwd-")));
      const home = realpathSync(mkdtempSync(join(tmpdir(), "opencode-home-")));
      const file = join(cwd, "hello.txt");
      fake.thinking([THINKING]);
      const answers = driveAgent(fake, c.tool, (n) => ({
        ...(c.model === THINKING ? { reasoning: REASONING } : {}),
        call: { call_id: `call_write_${n}`, name: c.tool, arguments: JSON.stringify(c.args(file)) },
      }));
      const { secret, account } = await fundedKey(gateway().store, "5");
      const from = proxy.exchanges.length;
      const sentFrom = fake.received.length;
      const askedFrom = registry.asked.length;
      try {
        const run = await runOpencode({
          sdk: c.sdk, baseUrl: `${proxy.url}/v1`, secret, model: c.model, cwd, home, prompt: "create hello.txt containing hi",
          timeoutMs: RUN_TIMEOUT_MS, registry: registry.url,
        });
        const exchanges = proxy.exchanges.slice(from);
        const forwarded = fake.received.slice(sentFrom);
        const asked = registry.asked.slice(askedFrom);
        if (process.env.OPENCODE_TEST_VERBOSE) console.log(JSON.stringify({ case: c.name, run, exchanges, answers, forwarded, asked }, null, 2));
        const context = expectFinished(run, exchanges, answers);
        expect(readFileSync(file, "utf8").trim(), context).toBe("hi");
        expect(run.stdout, context).toContain("Done.");
        expect(exchanges.filter((e) => e.method === "POST").every((e) => e.path === c.door), context).toBe(true);
        c.check?.(exchanges, forwarded);
        // Nothing was installed at run time: the AI SDK providers are in opencode's binary, and
        // its background install of @opencode-ai/plugin found no registry to download from.
        expect(existsSync(join(home, ".config", "opencode", "node_modules")), `registry asked: ${asked.join(", ")}`).toBe(false);

        await expectChargedExactly(gateway(), account.id, c.model, answers);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
