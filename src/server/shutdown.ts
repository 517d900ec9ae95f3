import type { Logger } from "./log.ts";

/** After cutting requests off, how long their releases may take to be issued before the process moves on. */
const RELEASE_WAIT_MS = 5_000;
const RELEASE_POLL_MS = 10;

interface Drainable {
  /** Stops accepting connections; resolves once every connection is closed. */
  stopAccepting(): Promise<unknown>;
  /** Closes the connections still open, cancelling their streams and aborting their requests. */
  cutOff(): Promise<unknown>;
  /** Reservations this process holds whose settlement or release has not been written yet. */
  openReservations(): number;
}

interface DrainOutcome {
  /** Requests were still running when the grace period ended and were cut off. */
  cutOff: boolean;
  /** Reservations still open at the end, left to another instance's sweeper (lease expiry). */
  leftOpen: number;
}

/**
 * Graceful shutdown of the HTTP side. New connections are refused at once; requests in flight
 * may finish until `graceOver` resolves (never, when it is undefined), so a stream runs to its
 * `[DONE]` and is charged as usual. Whatever is still running then is cut off, which takes the
 * client-disconnect path: the reservation is released and the usage log says why. The caller
 * closes the database only after this resolves, so those settlements and releases are written.
 */
export async function drain(server: Drainable, graceOver: Promise<unknown> | undefined, log: Logger): Promise<DrainOutcome> {
  const finishedInTime = await Promise.race([
    server.stopAccepting().then(() => true),
    ...(graceOver ? [graceOver.then(() => false)] : []),
  ]);
  if (!finishedInTime) {
    log.warn("shutdown grace period over; cutting off requests in flight", { openReservations: server.openReservations() });
    await server.cutOff();
  }
  // A cut-off request issues its release a few event-loop turns later (abort → catch → release),
  // and a settlement may still be waiting for its turn in a Postgres batch.
  const deadline = Date.now() + RELEASE_WAIT_MS;
  while (server.openReservations() > 0 && Date.now() < deadline) await Bun.sleep(RELEASE_POLL_MS);
  const leftOpen = server.openReservations();
  if (leftOpen > 0) log.warn("reservations left open at shutdown; a sweeper releases them when their lease expires", { leftOpen });
  return { cutOff: !finishedInTime, leftOpen };
}
