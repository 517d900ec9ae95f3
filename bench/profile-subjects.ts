// A gateway CPU profile (`GATEWAY_BUN_FLAGS=--cpu-prof bun bench/cell.ts …` writes one) as
// microseconds per request by subject, and its hottest functions:
//   bun bench/profile-subjects.ts CPU.….cpuprofile <µs of CPU per request in that run> [functions]
// Each sample is counted once and given its share of the run's measured CPU per request: the
// profiler samples only while JavaScript (or native code it called) runs, so the samples'
// time deltas also hold idle gaps and say nothing by themselves. Subjects are a sample's own
// (self) frame; expect ±10% per subject between two runs of the same binary.
import { readFileSync } from "node:fs";

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
}

// First match wins: a frame's function name or script against each rule.
const SUBJECTS: [string, RegExp][] = [
  ["SQLite statements (native)", /^(all|run|get|values|#runNoArgs|#all|query|finalize|prepare)$|bun:sqlite/],
  ["store (JS: SQL building, rows, transactions, group commit)", /src\/db\//],
  ["metrics", /prom-client|observability\/(metrics|series)/],
  ["log lines", /src\/server\/log\.ts|^writeFast$/],
  ["provider exchange (fetch, reading the answer)", /^fetch$|src\/server\/providers\/|^(text|arrayBuffer)$/],
  ["abort signals and timers", /AbortController|AbortSignal|EventListener|^(setTimeout|clearTimeout|refresh|abort)$/],
  ["stream plumbing (sinks, readers, bytes)", /^(write|close|drain|end|enqueue|encode|decode|indexOf|subarray|copy|onReadStreamIntoSinkChunk|ReadableStream)$|sse-response|src\/server\/providers\/sse/],
  ["JSON parse and stringify", /^(parse|stringify)$/],
  ["key hashing and IDs", /^(Hash|digest|update|randomUUIDv7|CryptoHasher)$/],
  ["chat core (pricing, mapping, billing session, relay)", /src\/core\//],
  ["HTTP framework (Elysia, TypeBox)", /elysia|typebox/],
  ["server (doors, guards, records, body)", /src\/server\//],
  ["generators and promises", /^(generatorResume|next|asyncFunctionDrive|Promise|then)$/],
];

function main(): void {
  const [file, cpuArg, topArg = "25"] = process.argv.slice(2);
  if (!file || !cpuArg) throw new Error("usage: bun bench/profile-subjects.ts FILE.cpuprofile <µs CPU/request> [functions]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const perNode = new Map<number, number>();
  for (const id of profile.samples) perNode.set(id, (perNode.get(id) ?? 0) + 1);
  const usPerSample = Number(cpuArg) / profile.samples.length;

  const bySubject = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, count] of perNode) {
    const frame = frames.get(id) as Frame;
    const script = frame.url.replace(/^.*\/(src|node_modules)\//, "$1/");
    const subject = SUBJECTS.find(([, rule]) => rule.test(frame.functionName) || rule.test(script))?.[0] ?? "other (native builtins, idle frames)";
    bySubject.set(subject, (bySubject.get(subject) ?? 0) + count);
    const name = `${frame.functionName || "(anonymous)"} ${script}${script ? `:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + count);
  }
  const line = (count: number, what: string) => `${(count * usPerSample).toFixed(1).padStart(8)} µs  ${what}`;
  console.log(`${profile.samples.length} samples, ${cpuArg} µs of CPU per request\n\nby subject (self time):`);
  for (const [subject, count] of [...bySubject].sort((a, b) => b[1] - a[1])) console.log(line(count, subject));
  console.log(`\nhottest functions (self time):`);
  for (const [name, count] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(line(count, name));
}

main();
