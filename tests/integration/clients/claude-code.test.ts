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
import { describeEachDialect } from "../../support/databases.ts";
import { startFakeResponsesProvider, type Script } from "../../support/fake-responses.ts";
import { ANTHROPIC_NATIVE, ANTHROPIC_TRANSLATED, messagesEnv } from "../../support/messages.ts";
import { costOf } from "../../support/responses.ts";
import { useGateway } from "../../support/server.ts";

const CLAUDE = new URL("../../../node_modules/.bin/claude", import.meta.url).pathname;
const RUN_TIMEOUT_MS = 90_000;

/** Whether `claude --version` runs; the reason when not. */
function claudeCli(): { ok: true; version: string } | { ok: false; reason: string } {
  try {
    const run = Bun.spawnSync([CLAUDE, "--version"], { stdout: "pipe", stderr: "pipe", timeout: 30_000, env: { PATH: process.env.PATH ?? "" } });
    if (run.exitCode === 0) return { ok: true, version: run.stdout.toString().trim() };
    return { ok: false, reason: `${CLAUDE} --version exited ${run.exitCode}: ${run.stderr.toString().trim().split("\n").at(-1)}` };
  } catch (error) {
    return { ok: false, reason: `${CLAUDE} cannot run (npm ci installs it): ${(error as Error).message}` };
  }
}

const cli = claudeCli();
if (!cli.ok) console.log(`skipping the Claude Code tests: ${cli.reason}`);

const fake = startFakeResponsesProvider();
afterAll(() => fake.stop());

/** What Claude Code asked the gateway, and how the gateway answered: a recording proxy in front of it. */
interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
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
      const exchange: Exchange = { method: request.method, path: url.pathname + url.search, status: upstream.status, headers, body: body ?? "", answer: "" };
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

const toolNames = (body: Record<string, unknown>): string[] =>
  ((body.tools as Record<string, any>[] | undefined) ?? []).map((t) => t.name ?? t.function?.name);

/** A tool_result in Anthropic's messages, or a tool message in chat completions. */
const carriesToolResult = (body: Record<string, unknown>): boolean =>
  ((body.messages as Record<string, any>[] | undefined) ?? []).some(
    (m) => m.role === "tool" || (Array.isArray(m.content) && m.content.some((b: Record<string, unknown>) => b.type === "tool_result")),
  );

interface Answer {
  kind: "write" | "done" | "other";
  usage: Script["usage"];
}

/** Scripts the fake for one run and records every answer it gives. */
function driveClaudeCode(file: string): Answer[] {
  const answers: Answer[] = [];
  fake.script(({ body }) => {
    const n = answers.length;
    let answer: Answer & Script;
    if (toolNames(body).includes("Write") && !carriesToolResult(body)) {
      answer = {
        kind: "write",
        call: { call_id: `toolu_write_${n}`, name: "Write", arguments: JSON.stringify({ file_path: file, content: "hi" }) },
        usage: { input: 4_000 + n, output: 40 + n, cached: 2_048 },
      };
    } else if (carriesToolResult(body)) {
      answer = { kind: "done", text: "Done.", usage: { input: 4_200 + n, output: 3, cached: 3_072 } };
    } else {
      answer = { kind: "other", text: "Greeting file", usage: { input: 300 + n, output: 4 + n } };
    }
    answers.push({ kind: answer.kind, usage: answer.usage });
    return answer;
  });
  return answers;
}

interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

async function runClaude(baseUrl: string, secret: string, model: string, cwd: string, home: string): Promise<ClaudeRun> {
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
  const child = Bun.spawn(
    [CLAUDE, "-p", "Write hello.txt containing hi", "--output-format", "json", "--allowedTools", "Write", "--permission-mode", "acceptEdits", "--max-turns", "5"],
    { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, RUN_TIMEOUT_MS);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
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
      const answers = driveClaudeCode(file);
      const { secret, account } = await fundedKey(gateway().store, "5");
      const from = proxy.exchanges.length;
      const sentFrom = fake.received.length;
      try {
        const run = await runClaude(proxy.url, secret, model, cwd, home);
        const exchanges = proxy.exchanges.slice(from);
        if (process.env.CLAUDE_CODE_TEST_VERBOSE) console.log(JSON.stringify({ model, run, exchanges, answers, forwarded: fake.received.slice(sentFrom) }, null, 2));
        const failed = exchanges.filter((e) => e.status >= 400).map((e) => `${e.method} ${e.path} -> ${e.status} ${e.answer}`);
        const context = `exit ${run.code}${run.timedOut ? " (timed out)" : ""}\nstderr: ${run.stderr}\nstdout: ${run.stdout}\ngateway errors: ${failed.join("\n")}`;
        expect(run.timedOut, context).toBe(false);
        expect(failed, context).toEqual([]);
        expect(run.code, context).toBe(0);
        const result = JSON.parse(run.stdout);
        expect(result, context).toMatchObject({ type: "result", subtype: "success", is_error: false });
        expect(readFileSync(file, "utf8")).toBe("hi");
        expect(answers.map((a) => a.kind)).toContain("write");
        expect(answers.at(-1)!.kind).toBe("done");
        expect(String(result.result)).toContain("Done.");

        // Every call the gateway served is one usage-log row charged the usage the fake reported for it.
        const rows = await gateway().store.usageLogPage(account.id, null, 1_000);
        const charged = rows.map((r) => [r.status, r.model, r.promptTokens, r.completionTokens, r.cost]).sort((a, b) => Number(a[2]) - Number(b[2]));
        const reported = answers
          .map((a) => ["success", model, a.usage.input, a.usage.output, costOf(model, a.usage.input, a.usage.output, a.usage.cached)])
          .sort((a, b) => Number(a[2]) - Number(b[2]));
        expect(charged).toEqual(reported as never);
        const total = answers.reduce((sum, a) => sum + costOf(model, a.usage.input, a.usage.output, a.usage.cached), 0n);
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
