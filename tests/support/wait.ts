/** Polls `condition` until it holds, failing after about two seconds: waits for an effect, not a time. */
export async function waitFor(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await Bun.sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}
