/**
 * How many requests refused by one key's allowlists are written to its account's usage each
 * minute, in this process. A refusal costs its sender nothing, so a stolen key tried from
 * elsewhere could otherwise make every attempt a database write and bury the account's real
 * requests (the CSV holds the latest 1,000). Past the budget, refusals are still answered 403
 * but go unrecorded until the minute is over.
 */
export class RefusalBudget {
  private minute = Number.NaN;
  private readonly used = new Map<string, number>();

  constructor(private readonly perMinute = 60) {}

  /** Whether this refusal of `keyId` may be recorded; counts it when it may. */
  take(keyId: string, now: number): boolean {
    const minute = Math.floor(now / 60_000);
    // A fixed window, forgotten whole each minute: the map holds only the keys refused in it.
    if (minute !== this.minute) {
      this.minute = minute;
      this.used.clear();
    }
    const used = this.used.get(keyId) ?? 0;
    if (used >= this.perMinute) return false;
    this.used.set(keyId, used + 1);
    return true;
  }
}
