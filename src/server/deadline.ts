/**
 * Resolves or rejects as `work` does, or rejects once `ms` pass without an answer. The work
 * itself is not cancelled: a database cut off by the network answers nothing (no error, no
 * reset) until TCP gives up many minutes later, and a request must not wait that long.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
