/** One line of the doctor's report. `fail` is something required that is broken: the exit code becomes 1. */
export interface Check {
  name: string;
  status: "ok" | "warn" | "fail" | "skip";
  message: string;
}

/** How long any one network check may take. */
const PROBE_TIMEOUT_MS = 10_000;

type ProbeResult = { status: number; body: unknown; ms: number } | { error: string };

/** A cheap authenticated GET: its status and JSON body, or why it got no answer. */
export async function probe(url: string, bearerToken: string): Promise<ProbeResult> {
  const startedAt = performance.now();
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${bearerToken}`, accept: "application/json" },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body: unknown = await res.json().catch(() => null);
    return { status: res.status, body, ms: Math.round(performance.now() - startedAt) };
  } catch (error) {
    return { error: failureText(error) };
  }
}

export const failureText = (error: unknown): string =>
  (error as Error)?.name === "TimeoutError" ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s` : ((error as Error)?.message ?? String(error));

/** A URL as it may be printed: without a user name or password in it. */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = "";
    url.password = "";
    return url.toString().replace(/\/$/, "");
  } catch {
    return "(not a URL)";
  }
}
