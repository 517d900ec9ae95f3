// Reads a gateway's GET /metrics (the Prometheus text format) so tests can look series up.

export interface Scrape {
  /** The exposition as received. */
  text: string;
  /** The value of the series `name` with exactly `labels`; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const seriesKey = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",")}}`;

export function parseExposition(text: string): Scrape {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith("#")) continue;
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(LABEL)].map((m) => [m[1]!, m[2]!.replace(/\\(.)/g, "$1")]));
    series.set(seriesKey(match[1]!, labels), Number(match[3]));
  }
  return { text, value: (name, labels = {}) => series.get(seriesKey(name, labels)) };
}

export async function scrape(baseUrl: string, token?: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return parseExposition(await res.text());
}
