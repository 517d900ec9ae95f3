// A provider's API keys (`<P>_API_KEY=k1,k2,…`): requests rotate over the keys that are not
// resting; a key the provider refused (401/403) or throttled (429) rests for a while.

/** How long a key rests after the provider refused it: a revoked or unpaid key stays broken for a while. */
export const REFUSED_REST_MS = 10 * 60_000;
/** How long a throttled key rests when the provider does not say (`Retry-After`). */
export const THROTTLED_REST_MS = 30_000;

interface PooledKey {
  /** Position in the configured list: what metrics and logs name, never the key. */
  index: number;
  secret: string;
}

export class KeyPool {
  private readonly keys: readonly PooledKey[];
  private readonly restingUntil: number[];
  private next = 0;

  constructor(secrets: readonly string[], private readonly now: () => number) {
    this.keys = secrets.map((secret, index) => ({ index, secret }));
    this.restingUntil = secrets.map(() => 0);
  }

  /**
   * The next key in turn that is not resting and not in `tried`; when every untried key rests,
   * the one whose rest ends first (a request is better tried than refused). Null when every
   * key was tried (or there is none).
   */
  pick(tried: ReadonlySet<number>): PooledKey | null {
    const count = this.keys.length;
    const now = this.now();
    let soonest = -1;
    for (let step = 0; step < count; step++) {
      const index = (this.next + step) % count;
      if (tried.has(index)) continue;
      if (this.restingUntil[index]! <= now) return this.take(index);
      if (soonest < 0 || this.restingUntil[index]! < this.restingUntil[soonest]!) soonest = index;
    }
    return soonest < 0 ? null : this.take(soonest);
  }

  rest(index: number, ms: number): void {
    this.restingUntil[index] = Math.max(this.restingUntil[index]!, this.now() + ms);
  }

  private take(index: number): PooledKey {
    this.next = (index + 1) % this.keys.length;
    return this.keys[index]!;
  }
}
