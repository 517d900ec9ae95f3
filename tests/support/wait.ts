/** Polls `condition` until it holds, failing after about `timeoutMs` (two seconds): waits for an effect, not a time. */
export async function waitFor(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 2_000): Promise<void> {
  for (let i = 0; i < timeoutMs / 5; i++) {
    if (await condition()) return;
    await Bun.sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}
