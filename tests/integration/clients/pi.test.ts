// pi itself (`pi -p` from @mariozechner/pi-coding-agent, a devDependency) run non-interactively,
// as a user configures it, against the gateway: one custom provider in ~/.pi/agent/models.json,
// over each of the three APIs pi speaks for custom models (one door each).
// The fake provider answers the agent loop with one call of pi's own `write` tool, then "Done."
// once the tool's output comes back, and any other call with short text. The file must be
// written, the run must succeed, and the account must be charged exactly the usage the fake
// reported for each call, with nothing left reserved. Skipped, with the reason printed, when pi
// does not run. PI_TEST_VERBOSE=1 prints every exchange.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fundedKey } from "../../support/accounts.ts";
import { driveAgent, expectChargedExactly, expectFinished, REASONING, reasoningCameBack, startRecordingProxy, type Exchange } from "../../support/agent-run.ts";
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider } from "../../support/fake-responses.ts";
import { piCli, runPi, type PiApi } from "../../support/pi.ts";
import { responsesEnv } from "../../support/responses.ts";
import { useGateway } from "../../support/server.ts";

const RUN_TIMEOUT_MS = 90_000;
// Sealing reasoning needs the deployment's key on Postgres (SQLite would make a key file).
const SECRET_KEY = "0914".repeat(16);

const cli = piCli();
if (!cli.ok) console.log(`skipping the pi tests: ${cli.reason}`);

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

type Fields = Record<string, any>;

interface Case {
  name: string;
  api: PiApi;
  model: string;
  /** The gateway path pi posts to. */
  door: string;
  /** The file-writing tool pi offers, and its arguments to write `file`. */
  tool: string;
  args: (file: string) => Record<string, unknown>;
  /** What else to check of what the client sent and the fake was sent. */
  check?: (exchanges: Exchange[], forwarded: typeof fake.received) => void;
}

const THINKING = "deepseek-v4-pro";

const write = { tool: "write", args: (file: string) => ({ path: file, content: "hi" }) };

const CASES: Case[] = [
  { name: "openai-completions", api: "openai-completions", model: THINKING, door: "/v1/chat/completions", ...write, check: reasoningCameBack },
  { name: "openai-responses", api: "openai-responses", model: "gpt-5.4", door: "/v1/responses", ...write },
  { name: "anthropic-messages", api: "anthropic-messages", model: THINKING, door: "/v1/messages", ...write, check: reasoningCameBack },
];

describeEachDialect("pi", (dialect) => {
  const gateway = useGateway(dialect, { ...responsesEnv(fake), SECRET_KEY });
  const proxy = startRecordingProxy(() => gateway().url);
  afterAll(() => proxy.stop());

  test.skipIf(!cli.ok).each(CASES.map((c) => [`${c.model} over ${c.name}`, c] as const))(
    "%s: pi -p writes hello.txt through the gateway, charged exactly the provider's usage",
    async (_name, c) => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), "pi-cwd-")));
      const home = realpathSync(mkdtempSync(join(tmpdir(), "pi-home-")));
      const file = join(cwd, "hello.txt");
      fake.thinking([THINKING]);
      const answers = driveAgent(fake, c.tool, (n) => ({
        ...(c.model === THINKING ? { reasoning: REASONING } : {}),
        call: { call_id: `call_write_${n}`, name: c.tool, arguments: JSON.stringify(c.args(file)) },
      }));
      const { secret, account } = await fundedKey(gateway().store, "5");
      const from = proxy.exchanges.length;
      const sentFrom = fake.received.length;
      try {
        const run = await runPi({ api: c.api, gatewayUrl: proxy.url, secret, model: c.model, reasoning: c.model === THINKING, cwd, home, prompt: "create hello.txt containing hi", timeoutMs: RUN_TIMEOUT_MS });
        const exchanges = proxy.exchanges.slice(from);
        const forwarded = fake.received.slice(sentFrom);
        if (process.env.PI_TEST_VERBOSE) console.log(JSON.stringify({ case: c.name, run, exchanges, answers, forwarded }, null, 2));
        const context = expectFinished(run, exchanges, answers);
        expect(readFileSync(file, "utf8").trim(), context).toBe("hi");
        expect(run.stdout, context).toContain("Done.");
        expect(exchanges.filter((e) => e.method === "POST").every((e) => e.path === c.door), context).toBe(true);
        c.check?.(exchanges, forwarded);

        await expectChargedExactly(gateway(), account.id, c.model, answers);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
