/**
 * Polls `condition` until it holds, failing after about `timeoutMs` (two seconds): waits for an
 * effect, not a time. `intervalMs` spaces out conditions that cost something (a request each).
 */
export async function waitFor(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 2_000, intervalMs = 5): Promise<void> {
  for (let i = 0; i < timeoutMs / intervalMs; i++) {
    if (await condition()) return;
    await Bun.sleep(intervalMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}
