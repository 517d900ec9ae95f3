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
  private readonly restingUntil: number[];
  private next = 0;

  constructor(private readonly secrets: readonly string[], private readonly now: () => number) {
    this.restingUntil = secrets.map(() => 0);
  }

  get size(): number {
    return this.secrets.length;
  }

  /**
   * The next key in turn that is not resting and not in `tried`; when every untried key rests,
   * the one whose rest ends first (a request is better tried than refused). Null when every
   * key was tried (or there is none).
   */
  pick(tried: ReadonlySet<number>): PooledKey | null {
    const now = this.now();
    const untried = this.secrets.map((_, i) => (this.next + i) % this.secrets.length).filter((i) => !tried.has(i));
    if (untried.length === 0) return null;
    const index = untried.find((i) => this.restingUntil[i]! <= now)
      ?? untried.reduce((a, b) => (this.restingUntil[b]! < this.restingUntil[a]! ? b : a));
    this.next = (index + 1) % this.secrets.length;
    return { index, secret: this.secrets[index]! };
  }

  rest(index: number, ms: number): void {
    this.restingUntil[index] = Math.max(this.restingUntil[index]!, this.now() + ms);
  }
}
