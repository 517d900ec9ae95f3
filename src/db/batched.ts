/**
 * Calls answered together by one `run` over several of them. A call made while fewer than
 * `inFlight` runs are going starts one at once; a call made while they are all busy waits for
 * one to end, and then goes with every call that waited meanwhile (at most `max`). So a request
 * alone is never delayed, and under load many requests share one Postgres statement and commit,
 * as group commit does for SQLite. `run` returns one outcome per item, in the items' order (a
 * promise, for an item that fails or is answered later on its own); if it fails, every item of
 * its batch fails with its error.
 *
 * Nothing here waits for a timer or the next turn of the event loop: the batch forms while the
 * database is busy with the previous ones.
 */
export function batched<I, O>(
  run: (items: I[]) => Promise<(O | PromiseLike<O>)[]>,
  limits: { max: number; inFlight: number },
): (item: I) => Promise<O> {
  const waiting: { item: I; resolve(outcome: O): void; reject(error: unknown): void }[] = [];
  let running = 0;
  // A `run` that throws instead of rejecting fails its batch all the same.
  const started = (items: I[]) => {
    try {
      return run(items);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const start = () => {
    while (running < limits.inFlight && waiting.length > 0) {
      const batch = waiting.splice(0, limits.max);
      running++;
      started(batch.map((p) => p.item))
        .then(
          (outcomes) => batch.forEach((p, i) => p.resolve(outcomes[i] as O)),
          (error: unknown) => batch.forEach((p) => p.reject(error)),
        )
        .finally(() => {
          running--;
          start();
        });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      start();
    });
}
