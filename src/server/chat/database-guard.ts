// The chat path's database steps as the client sees them: a failure is a 503 (the client may
// retry; nothing was charged), and on Postgres a step before anything is forwarded has a
// deadline, so that a database cut off by the network is a 503 too rather than a hang.
import { AppError, isAppError } from "../../core/errors.ts";
import type { RequestBillingStore } from "../../core/chat/billing.ts";
import type { Release } from "../../core/store.ts";
import { withDeadline } from "../deadline.ts";
import type { Logger } from "../log.ts";
import type { LeaseKeeper } from "./lease-keeper.ts";
import type { RefusalBudget } from "./refusal-budget.ts";

const ADMITTED_TOO_LATE = "The reservation was taken after the request had stopped waiting for the database";
const CHARGE_NOT_WRITTEN = "The charge could not be written to the database; the reservation was released instead";

/** `work`, with a failure (or a missed deadline) turned into the 503 the client is told. */
export function guarded<T>(work: Promise<T>, log: Logger, deadlineMs?: number): Promise<T> {
  // A promise reaction, not an async function: this wraps every database step of every request.
  return (deadlineMs === undefined ? work : withDeadline(work, deadlineMs)).catch((error: unknown) => {
    if (isAppError(error)) throw error;
    log.error("database error on the chat path", { error });
    throw new AppError("unavailable", "The service is temporarily unavailable; please retry");
  });
}

/**
 * The billing store as the chat path uses it. Admissions count toward what shutdown waits for,
 * and one that commits after its request stopped waiting is released at once, not held until
 * its lease runs out. Settlements get no deadline: answering before their outcome is known
 * could charge a client who was told that the request failed.
 */
export function guardedBilling(
  store: RequestBillingStore,
  ports: { leases: LeaseKeeper; log: Logger; now: () => number; refusals: RefusalBudget },
  deadlineMs: number | undefined,
): RequestBillingStore {
  const { leases, log, now, refusals } = ports;
  const { unwritten } = leases;
  /** An admission, with its deadline; one that commits after its request stopped waiting is released at once. */
  const admitting = <T>(admit: () => Promise<T>, heldBy: (outcome: T) => string | null, startedAt: number): Promise<T> => {
    // Releases left unwritten go first: once writes work again, the slots they hold are free
    // for this very request rather than after the retry's next turn.
    const tracked = leases.track(unwritten.size === 0 ? admit() : unwritten.flush().then(admit));
    // Without a deadline (SQLite) an admission that failed took nothing: there is nothing to release late.
    if (deadlineMs === undefined) return guarded(tracked, log);
    return guarded(tracked, log, deadlineMs).catch((error: unknown) => {
      const releaseLate = tracked.then(
        (late) => {
          const reservationId = heldBy(late);
          if (!reservationId) return;
          const release = { reservationId, reason: ADMITTED_TOO_LATE, latencyMs: now() - startedAt, now: now() };
          return store.release(release).then(() => undefined, () => unwritten.add(release));
        },
        () => undefined, // the admission itself failed (logged by `guarded`): nothing was taken
      );
      void leases.track(releaseLate);
      throw error;
    });
  };
  /** A reservation's end that failed to be written: its release is written again until it is. */
  const unwrittenOnFailure = (release: Release, error: unknown): never => {
    unwritten.add(release);
    throw error;
  };
  // Made per request (its log carries the request's ID) and held as long as its reservation:
  // only these methods, not a copy of the whole store.
  return {
    admitByKey: (keyHash, admission) => admitting(() => store.admitByKey(keyHash, admission), (late) => late.reservationId, admission.now),
    reserve: (input) => admitting(() => store.reserve(input), (late) => (late.ok ? late.reservationId : null), input.now),
    // The release to write again is made only when the write failed: a settlement is on every request's path.
    settle: (input) => guarded(store.settle(input), log).catch((error: unknown) =>
      unwrittenOnFailure({ reservationId: input.reservationId, reason: CHARGE_NOT_WRITTEN, latencyMs: input.latencyMs, now: input.now }, error)),
    release: (input) => guarded(store.release(input), log).catch((error: unknown) => unwrittenOnFailure(input, error)),
    // Nothing is held for a refusal: a failed write loses one row, and the pipeline logs it.
    recordRefusal: (input) => (refusals.take(input.keyId, input.now) ? guarded(store.recordRefusal(input), log) : Promise.resolve()),
  };
}
