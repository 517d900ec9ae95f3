// Counters and histograms for the request path, exposed through prom-client's registry and in
// its text format. prom-client builds, validates and hashes a label object on every update,
// even through a child from `labels()` (~1–2 µs each, and a chat request makes ten or so); here
// a series is found by its label values, one Map per label, and an update is an addition.
import type { Registry } from "prom-client";

type Labels = Record<string, string>;

/** The value prom-client's registry reads from a metric: one exposition line. */
interface ExposedValue {
  labels: Record<string, string | number>;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

const finite = (value: number, metric: string): number => {
  if (!Number.isFinite(value)) throw new TypeError(`${metric}: value is not a valid number: ${value}`);
  return value;
};

/** A metric's series by label values, in the order they were first used (as prom-client lists them). */
abstract class Family<S extends { labels: Labels }> {
  readonly aggregator = "sum";
  private readonly root = new Map<string, unknown>();
  protected readonly all: S[] = [];

  constructor(readonly name: string, readonly help: string, private readonly labelNames: readonly string[], registry: Registry) {
    registry.registerMetric(this as never);
  }

  protected abstract create(labels: Labels): S;

  /** The series of `values`, given in the order of the label names; made on first use. */
  series(...values: string[]): S {
    let level: Map<string, unknown> = this.root;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i] as string;
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(value, (next = new Map()));
      level = next;
    }
    const key = last < 0 ? "" : (values[last] as string);
    let found = level.get(key) as S | undefined;
    if (found === undefined) {
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i] as string));
      found = this.create(labels);
      level.set(key, found);
      this.all.push(found);
    }
    return found;
  }
}

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels, private readonly metric: string) {}

  inc(by = 1): void {
    if (finite(by, this.metric) < 0) throw new Error(`${this.metric}: a counter cannot be decreased`);
    this.value += by;
  }
}

export class CounterFamily extends Family<CounterSeries> {
  readonly type = "counter";
  protected create(labels: Labels) {
    return new CounterSeries(labels, this.name);
  }
  get() {
    const values: ExposedValue[] = this.all.map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); past the last bound only `count` moves. */
  readonly inBucket: number[];
  sum = 0;
  count = 0;
  constructor(readonly labels: Labels, private readonly bounds: readonly number[], private readonly metric: string) {
    this.inBucket = bounds.map(() => 0);
  }

  observe(value: number): void {
    finite(value, this.metric);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (this.inBucket[i] as number)++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

export class HistogramFamily extends Family<HistogramSeries> {
  readonly type = "histogram";
  constructor(name: string, help: string, labelNames: readonly string[], private readonly bounds: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
  }
  protected create(labels: Labels) {
    return new HistogramSeries(labels, this.bounds, this.name);
  }
  /** Cumulative buckets, `+Inf`, sum and count per series, as prom-client's Histogram gives them. */
  get() {
    const bucket = `${this.name}_bucket`;
    const values: ExposedValue[] = [];
    for (const s of this.all) {
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += s.inBucket[i] as number;
        values.push({ labels: { le }, sharedLabels: s.labels, value: below, metricName: bucket });
      });
      values.push(
        { labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count, metricName: bucket },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
