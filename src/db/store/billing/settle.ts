import { nanos, type Nanos } from "../../../core/money.ts";
import type { Settlement } from "../../../core/store.ts";
import type { Work } from "../../sql.ts";
import { appendLedger } from "../accounts/records.ts";
import { takeReservation } from "./release.ts";
import type { Held } from "./usage-log.ts";
import { writeUsageLog } from "./usage-log.ts";
import { countEnded } from "./windows.ts";

const chargeKey = (reservationId: string) => `charge:${reservationId}`;

/** A settlement whose charge is already in the ledger: it changed nothing. */
export class AlreadyCharged extends Error {
  constructor(reservationId: string) {
    super(`reservation ${reservationId} was already charged`);
  }
}

export function* settle(input: Settlement): Work<{ balance: Nanos }> {
  // A request that outlived its lease was already released by the sweeper: it is still
  // charged, but there is nothing left to release.
  const taken = yield* takeReservation(input.reservationId);
  const held: Held = taken ?? { ...input, amount: nanos(0) };
  // The charge is keyed by its reservation, so a settlement can never be applied twice.
  const charged = yield* appendLedger(
    { accountId: held.accountId, amount: nanos(-input.cost), kind: "charge", idempotencyKey: chargeKey(input.reservationId), now: input.now },
    { reserved: held.amount, requests: taken ? 1 : 0 },
  );
  if (!charged) throw new AlreadyCharged(input.reservationId);
  yield* countEnded(held, input.cost, taken ? 1 : 0, input.now);
  // The row names the model that answered, which a fallback makes another than the one reserved for.
  yield* writeUsageLog({ ...input, held: { ...held, model: input.model }, status: "success", error: null });
  return charged;
}
