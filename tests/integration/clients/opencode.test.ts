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
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider, type Script } from "../../support/fake-responses.ts";
import { opencodeCli, runOpencode, startRegistryTrap, type OpencodeSdk } from "../../support/opencode.ts";
import { costOf, responsesEnv } from "../../support/responses.ts";
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

/** What opencode asked the gateway, and how the gateway answered: a recording proxy in front of it. */
interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  answerHeaders: Record<string, string>;
  body: string;
  answer: string;
}

function startRecordingProxy(target: () => string) {
  const exchanges: Exchange[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
      const headers = Object.fromEntries(request.headers);
      const upstream = await fetch(`${target()}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, decompress: false } as RequestInit);
      const exchange: Exchange = {
        method: request.method, path: url.pathname + url.search, status: upstream.status, headers,
        answerHeaders: Object.fromEntries(upstream.headers), body: body ?? "", answer: "",
      };
      exchanges.push(exchange);
      // Keep error answers (and small JSON ones) to report; stream everything else through untouched.
      if (!upstream.ok || !(upstream.headers.get("content-type") ?? "").includes("event-stream")) {
        exchange.answer = await upstream.text();
        return new Response(exchange.answer, { status: upstream.status, headers: upstream.headers });
      }
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, exchanges, stop: () => server.stop(true) };
}

type Fields = Record<string, any>;

/** The names of a forwarded body's tools: Responses or Anthropic (`name`) or chat (`function.name`). */
const toolNames = (body: Fields): string[] => ((body.tools as Fields[] | undefined) ?? []).map((t) => t.name ?? t.function?.name ?? t.type);

/** A tool's output: in the Responses input, a tool message in chat completions, a tool_result block in Messages. */
const carriesToolResult = (body: Fields): boolean =>
  ((body.input as Fields[] | undefined) ?? []).some((i) => i?.type === "function_call_output") ||
  ((body.messages as Fields[] | undefined) ?? []).some(
    (m) => m.role === "tool" || (Array.isArray(m.content) && m.content.some((b: Fields) => b?.type === "tool_result")),
  );

interface Answer {
  kind: "tool" | "done" | "other";
  path: string;
  usage: Script["usage"];
}

/** Scripts the fake for one run: the first call offering `tool` calls it with `args`; records every answer. */
function driveAgent(tool: string, args: Record<string, unknown>, reasoning?: string): Answer[] {
  const answers: Answer[] = [];
  fake.script(({ path, body }) => {
    const n = answers.length;
    let answer: Answer & Script;
    if (carriesToolResult(body)) {
      answer = { kind: "done", path, text: "Done.", usage: { input: 7_200 + n, output: 3, cached: 4_096 } };
    } else if (toolNames(body).includes(tool) && !answers.some((a) => a.kind === "tool")) {
      answer = {
        kind: "tool", path, ...(reasoning ? { reasoning } : {}),
        call: { call_id: `call_write_${n}`, name: tool, arguments: JSON.stringify(args) },
        usage: { input: 7_000 + n, output: 40 + n, cached: 2_048 },
      };
    } else {
      answer = { kind: "other", path, text: "Greeting file", usage: { input: 300 + n, output: 4 + n } };
    }
    answers.push({ kind: answer.kind, path: answer.path, usage: answer.usage });
    return answer;
  });
  return answers;
}

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

const chatBodies = (forwarded: typeof fake.received) => forwarded.filter((f) => f.path === "/v1/chat/completions").map((f) => f.body);

/**
 * The client sent the tool-calling turn's reasoning back (chat: as `reasoning_content`; Messages:
 * as the thinking block, signed by the gateway), and it reached DeepSeek as `reasoning_content`.
 */
function reasoningCameBack(exchanges: Exchange[], forwarded: typeof fake.received) {
  const sent = JSON.parse(exchanges.filter((e) => e.method === "POST").at(-1)!.body) as Fields;
  const turn = (sent.messages as Fields[]).find((m) => m.role === "assistant");
  const carried = turn?.reasoning_content ?? (Array.isArray(turn?.content) ? turn.content.find((b: Fields) => b.type === "thinking")?.thinking : undefined);
  expect(carried, "the client did not send the reasoning back").toBe(REASONING);
  const second = chatBodies(forwarded).find(carriesToolResult);
  expect(second, "no chat request carried the tool's output").toBeDefined();
  const assistant = (second!.messages as Fields[]).find((m) => m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0);
  expect(assistant).toMatchObject({ reasoning_content: REASONING });
}

const REASONING = "I should write the file.";
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
      const answers = driveAgent(c.tool, c.args(file), c.model === THINKING ? REASONING : undefined);
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
        const failed = exchanges.filter((e) => e.status >= 400).map((e) => `${e.method} ${e.path} -> ${e.status} ${e.answer}`);
        const context = `exit ${run.code}${run.timedOut ? " (timed out)" : ""}\nstderr: ${run.stderr.slice(-4000)}\nstdout: ${run.stdout}\ngateway errors: ${failed.join("\n")}`;
        expect(run.timedOut, context).toBe(false);
        expect(failed, context).toEqual([]);
        expect(run.code, context).toBe(0);
        expect(readFileSync(file, "utf8").trim(), context).toBe("hi");
        expect(answers.map((a) => a.kind), context).toContain("tool");
        expect(answers.at(-1)!.kind, context).toBe("done");
        expect(run.stdout, context).toContain("Done.");
        expect(exchanges.filter((e) => e.method === "POST").every((e) => e.path === c.door), context).toBe(true);
        c.check?.(exchanges, forwarded);
        // Nothing was installed at run time: the AI SDK providers are in opencode's binary, and
        // its background install of @opencode-ai/plugin found no registry to download from.
        expect(existsSync(join(home, ".config", "opencode", "node_modules")), `registry asked: ${asked.join(", ")}`).toBe(false);

        // Every call the gateway served is one usage-log row charged the usage the fake reported for it.
        const rows = await gateway().store.usageLogPage(account.id, null, 1_000);
        const charged = rows.map((r) => [r.status, r.model, r.promptTokens, r.completionTokens, r.cost]).sort((a, b) => Number(a[2]) - Number(b[2]));
        const reported = answers
          .map((a) => ["success", c.model, a.usage.input, a.usage.output, costOf(c.model, a.usage.input, a.usage.output, a.usage.cached)])
          .sort((a, b) => Number(a[2]) - Number(b[2]));
        expect(charged).toEqual(reported as never);
        const total = answers.reduce((sum, a) => sum + costOf(c.model, a.usage.input, a.usage.output, a.usage.cached), 0n);
        const after = (await gateway().store.getAccount(account.id))!;
        expect([after.balance, after.reserved, after.inflight]).toEqual([5_000_000_000n - total, 0n, 0] as never);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
