// Two servers' latency for a request alone, taken request by request rather than run by run:
// the two take turns, one request in flight, in a random order within each pair, so that what
// a shared host does (a neighbour's burst, a background flush on the database's core) falls on
// both alike. A run of each in turn moves by milliseconds at the 99th percentile between runs
// on such a host; pairs separate what the server adds from that. The client is this process:
// pin it where the load generator runs.
import { median } from "./processes.ts";

/** A server to pair: where to send the request and the keys to rotate through. */
export interface PairedSide { name: string; url: string; keys: string[] }
/** One side's latencies as this client saw them, ms. */
export interface PairedLatency { name: string; p50: number; p90: number; p99: number; ms: number[] }

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;

/**
 * `pairs` requests to each of the two sides, alternating in a random order within each pair,
 * after `warm` pairs not counted; each answer read to its end. Returns each side's quantiles
 * and the median of B − A by pair, ms. Throws on an answer other than 200.
 */
export async function pairedLone(
  sides: [PairedSide, PairedSide],
  request: { path: string; body: string },
  pairs: number,
  warm = 500,
): Promise<{ sides: [PairedLatency, PairedLatency]; medianDifference: number }> {
  const turn = [0, 0];
  const once = async (side: PairedSide, at: number): Promise<number> => {
    const key = side.keys[turn[at]!++ % side.keys.length];
    const started = performance.now();
    const res = await fetch(`${side.url}${request.path}`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: request.body,
    });
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${side.name} answered ${res.status}`);
    return ms;
  };
  for (let i = 0; i < warm; i++) for (const [at, side] of sides.entries()) await once(side, at);
  const took: [number[], number[]] = [[], []];
  const differences: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const order = Math.random() < 0.5 ? [0, 1] : [1, 0];
    const pair = [0, 0];
    for (const at of order) pair[at] = await once(sides[at]!, at);
    took[0].push(pair[0]!);
    took[1].push(pair[1]!);
    differences.push(pair[1]! - pair[0]!);
  }
  const latency = (at: 0 | 1): PairedLatency => {
    const sorted = [...took[at]].sort((a, b) => a - b);
    return { name: sides[at].name, p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), ms: took[at] };
  };
  return { sides: [latency(0), latency(1)], medianDifference: median(differences) };
}
