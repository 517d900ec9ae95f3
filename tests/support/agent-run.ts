// What every coding agent's test does around the agent itself (Claude Code, Codex CLI, opencode,
// pi): run its binary in a process group of its own with a time limit; record what it asked the
// gateway through a proxy; script the fake provider so that the agent's first call asks for its
// tool and the call carrying the tool's output gets "Done."; and check that every call the
// gateway served was charged exactly the usage the fake reported, with nothing left reserved.
import { expect } from "bun:test";
import { costOf } from "./responses.ts";
import type { FakeResponsesProvider, Script } from "./fake-responses.ts";
import type { TestGateway } from "./server.ts";

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Whether `bin --version` runs; the reason (and how to get it) when not. */
export function agentCli(bin: string, hint: string): { ok: true; version: string } | { ok: false; reason: string } {
  try {
    const run = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe", timeout: 30_000, env: { PATH: process.env.PATH ?? "" } });
    // Some print their version on stderr.
    if (run.exitCode === 0) return { ok: true, version: `${run.stdout}${run.stderr}`.trim() };
    return { ok: false, reason: `${bin} --version exited ${run.exitCode}: ${run.stderr.toString().trim().split("\n").at(-1)}` };
  } catch (error) {
    return { ok: false, reason: `${bin} cannot run (${hint}): ${(error as Error).message}` };
  }
}

/**
 * Runs an agent once to completion, or SIGKILLs it after `timeoutMs`. stdin is /dev/null (agents
 * read a piped stdin as more prompt); its own process group, so that a timeout also kills the
 * commands it started.
 */
export async function runAgent(args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<AgentRun> {
  const child = Bun.spawn(args, { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  const kill = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) kill();
  }
}

/** What an agent asked the gateway, and how the gateway answered. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  answerHeaders: Record<string, string>;
  body: string;
  answer: string;
}

/** A recording proxy in front of the gateway (`target`): streams pass through untouched. */
export function startRecordingProxy(target: () => string) {
  const exchanges: Exchange[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
      const upstream = await fetch(`${target()}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, decompress: false } as RequestInit);
      const exchange: Exchange = {
        method: request.method, path: url.pathname + url.search, status: upstream.status, headers: Object.fromEntries(request.headers),
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

/** The names of a forwarded body's tools: Responses or Anthropic (`name`, or a hosted tool's type) or chat (`function.name`). */
export const toolNames = (body: Fields): string[] => ((body.tools as Fields[] | undefined) ?? []).map((t) => t.name ?? t.function?.name ?? t.type);

/** A tool's output: in the Responses input (function or custom), a tool message in chat completions, a tool_result block in Messages. */
export const carriesToolResult = (body: Fields): boolean =>
  ((body.input as Fields[] | undefined) ?? []).some((i) => i?.type === "function_call_output" || i?.type === "custom_tool_call_output") ||
  ((body.messages as Fields[] | undefined) ?? []).some(
    (m) => m.role === "tool" || (Array.isArray(m.content) && m.content.some((b: Fields) => b?.type === "tool_result")),
  );

export interface Answer {
  kind: "tool" | "done" | "other";
  path: string;
  usage: Script["usage"];
}

/**
 * Scripts `fake` for one run and records every answer it gives: the first call offering `tool`
 * gets `step` (the tool's call), a call carrying a tool's output gets "Done.", any other (titles,
 * quota checks) short text. Each answer's usage is distinct, so that each charge can be told.
 */
export function driveAgent(fake: FakeResponsesProvider, tool: string, step: (n: number) => Pick<Script, "call" | "custom" | "reasoning">): Answer[] {
  const answers: Answer[] = [];
  fake.script(({ path, body }) => {
    const n = answers.length;
    let answer: Answer & Script;
    if (carriesToolResult(body)) {
      answer = { kind: "done", path, text: "Done.", usage: { input: 9_200 + n, output: 3, cached: 8_192 } };
    } else if (toolNames(body).includes(tool) && !answers.some((a) => a.kind === "tool")) {
      answer = { kind: "tool", path, ...step(n), usage: { input: 9_000 + n, output: 40 + n, cached: 4_096 } };
    } else {
      answer = { kind: "other", path, text: "Greeting file", usage: { input: 300 + n, output: 4 + n } };
    }
    answers.push({ kind: answer.kind, path: answer.path, usage: answer.usage });
    return answer;
  });
  return answers;
}

/** What to print when a run's checks fail: how it ended, its output, and the gateway's error answers. */
export function runContext(run: AgentRun, exchanges: Exchange[]): { failed: string[]; context: string } {
  const failed = exchanges.filter((e) => e.status >= 400).map((e) => `${e.method} ${e.path} -> ${e.status} ${e.answer}`);
  const context = `exit ${run.code}${run.timedOut ? " (timed out)" : ""}\nstderr: ${run.stderr.slice(-4000)}\nstdout: ${run.stdout}\ngateway errors: ${failed.join("\n")}`;
  return { failed, context };
}

/** The run finished cleanly: no time-out, no error answer, exit 0, the tool asked for and the loop ended with "Done.". */
export function expectFinished(run: AgentRun, exchanges: Exchange[], answers: Answer[]): string {
  const { failed, context } = runContext(run, exchanges);
  expect(run.timedOut, context).toBe(false);
  expect(failed, context).toEqual([]);
  expect(run.code, context).toBe(0);
  expect(answers.map((a) => a.kind), context).toContain("tool");
  expect(answers.at(-1)!.kind, context).toBe("done");
  return context;
}

/** Every call the gateway served is one usage-log row charged the usage the fake reported for it, and nothing stays reserved. */
export async function expectChargedExactly(gateway: TestGateway, accountId: string, model: string, answers: Answer[], funded = 5_000_000_000n) {
  const rows = await gateway.store.usageLogPage(accountId, null, 1_000);
  const charged = rows.map((r) => [r.status, r.model, r.promptTokens, r.completionTokens, r.cost]).sort((a, b) => Number(a[2]) - Number(b[2]));
  const reported = answers
    .map((a) => ["success", model, a.usage.input, a.usage.output, costOf(model, a.usage.input, a.usage.output, a.usage.cached)])
    .sort((a, b) => Number(a[2]) - Number(b[2]));
  expect(charged).toEqual(reported as never);
  const total = answers.reduce((sum, a) => sum + costOf(model, a.usage.input, a.usage.output, a.usage.cached), 0n);
  const after = (await gateway.store.getAccount(accountId))!;
  expect([after.balance, after.reserved, after.inflight]).toEqual([funded - total, 0n, 0] as never);
}

/** The reasoning the fake's thinking model gives with its tool call. */
export const REASONING = "I should write the file.";

/**
 * The client sent the tool-calling turn's reasoning back (chat: as `reasoning_content`; Messages:
 * as the thinking block, signed by the gateway), and it reached DeepSeek as `reasoning_content`.
 */
export function reasoningCameBack(exchanges: Exchange[], forwarded: FakeResponsesProvider["received"]) {
  const sent = JSON.parse(exchanges.filter((e) => e.method === "POST").at(-1)!.body) as Fields;
  const turn = (sent.messages as Fields[]).find((m) => m.role === "assistant");
  const carried = turn?.reasoning_content ?? (Array.isArray(turn?.content) ? turn.content.find((b: Fields) => b.type === "thinking")?.thinking : undefined);
  expect(carried, "the client did not send the reasoning back").toBe(REASONING);
  const second = forwarded.filter((f) => f.path === "/v1/chat/completions").map((f) => f.body).find(carriesToolResult);
  expect(second, "no chat request carried the tool's output").toBeDefined();
  const assistant = (second!.messages as Fields[]).find((m) => m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0);
  expect(assistant).toMatchObject({ reasoning_content: REASONING });
}
