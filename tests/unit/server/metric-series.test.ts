// The request path's counters and histograms (src/server/observability/series.ts) replace
// prom-client's on the hot path; scrapers and dashboards must not see the difference. The same
// updates go to both, and the two registries' text must match line for line.
import { describe, expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "prom-client";
import { CounterFamily, HistogramFamily } from "../../../src/server/observability/series.ts";

const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.5, 5];

describe("metric series", () => {
  test("expose exactly what prom-client's Counter and Histogram expose for the same updates", async () => {
    const [ours, theirs] = [new Registry(), new Registry()];
    const counter = new CounterFamily("t_requests_total", "Requests, by route and status", ["route", "status"], ours);
    const reference = new Counter({ name: "t_requests_total", help: "Requests, by route and status", labelNames: ["route", "status"], registers: [theirs] });
    const histogram = new HistogramFamily("t_duration_seconds", "Durations \"quoted\"\nand wrapped", ["kind"], BOUNDS, ours);
    const referenceHistogram = new Histogram({ name: "t_duration_seconds", help: "Durations \"quoted\"\nand wrapped", labelNames: ["kind"], buckets: BOUNDS, registers: [theirs] });
    const plain = new CounterFamily("t_fallbacks_total", "Without labels", [], ours);
    const referencePlain = new Counter({ name: "t_fallbacks_total", help: "Without labels", registers: [theirs] });

    plain.series().inc(0);
    referencePlain.inc(0);
    const updates: [string, string, number][] = [
      ["/v1/chat/completions", "200", 1], ["/models", "200", 2], ["/v1/chat/completions", "402", 1],
      ["/v1/chat/completions", "200", 0.25], ['/odd"path\\', "500", 1e-7],
    ];
    for (const [route, status, by] of updates) {
      counter.series(route, status).inc(by);
      reference.labels(route, status).inc(by);
    }
    const observations: [string, number][] = [["query", 0.0004], ["query", 0.0005], ["transaction", 0.003], ["query", 7], ["transaction", 0.5], ["query", 0]];
    for (const [kind, seconds] of observations) {
      histogram.series(kind).observe(seconds);
      referenceHistogram.labels(kind).observe(seconds);
    }
    plain.series().inc();
    referencePlain.inc();

    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('t_duration_seconds_bucket{le="0.0005",kind="query"} 3');
    expect(text).toContain('t_duration_seconds_bucket{le="+Inf",kind="query"} 4');
    expect(text).toContain('t_requests_total{route="/v1/chat/completions",status="200"} 1.25');
  });

  test("refuse what prom-client refuses: a counter going down, a value that is not a number", () => {
    const registry = new Registry();
    const counter = new CounterFamily("t_total", "t", ["a"], registry);
    const histogram = new HistogramFamily("t_seconds", "t", ["a"], BOUNDS, registry);
    expect(() => counter.series("x").inc(-1)).toThrow("cannot be decreased");
    expect(() => counter.series("x").inc(Number.NaN)).toThrow("not a valid number");
    expect(() => histogram.series("x").observe(Number.POSITIVE_INFINITY)).toThrow("not a valid number");
    expect(counter.series("x").value).toBe(0);
    expect(histogram.series("x").count).toBe(0);
  });
});
