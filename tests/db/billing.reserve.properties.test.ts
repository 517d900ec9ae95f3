// The admission SQL holds core's rule: over random account states, the store's reservation (the
// single-request transaction on both dialects, and Postgres's batched statement) admits and
// refuses exactly as `decideReservation` does on the same state, with the same refusal.
import { expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import type { AppError } from "../../src/core/errors.ts";
import { nanos } from "../../src/core/money.ts";
import { decideReservation, type ReservationSnapshot } from "../../src/core/billing/reservation.ts";
import type { NewReservation, ReservationOutcome } from "../../src/core/store.ts";
import { admitMany } from "../../src/db/store/billing/admit-batch.ts";
import type { FundedKey } from "../support/accounts.ts";
import {
  plantReservationWorld, reservationWorld, unit, windowOf, type ReservationWorld,
} from "../support/billing-world.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const RUNS = 60;
// Each run plants a new account: a few seconds on Postgres, more on a loaded machine.
setDefaultTimeout(30_000);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const limitOf = (units: number | null) => (units === null ? null : unit(units));

/** What the store should read for `world`, derived from the world rather than from the tables. */
function snapshotOf(world: ReservationWorld, now: number): ReservationSnapshot {
  return {
    inflight: world.otherInflight + world.keyOpen.length,
    available: unit(world.balance - world.otherReserved - sum(world.keyOpen)),
    reserved: unit(world.otherReserved + sum(world.keyOpen)),
    accountSpendLimit: limitOf(world.spendLimit),
    accountHour: windowOf(world.accountBuckets, now),
    key: {
      creditLimit: limitOf(world.creditLimit),
      usdPerHour: limitOf(world.usdPerHour),
      requestsPerHour: world.requestsPerHour,
      spent: unit(world.keySpent),
      open: { amount: unit(sum(world.keyOpen)), requests: world.keyOpen.length },
      hour: windowOf(world.keyBuckets, now),
    },
  };
}

const requestFor = (holder: FundedKey, world: ReservationWorld, amount: number, now: number): NewReservation => ({
  account: holder.account,
  key: { id: holder.key.id, creditLimit: limitOf(world.creditLimit), usdPerHour: limitOf(world.usdPerHour), requestsPerHour: world.requestsPerHour },
  model: "m",
  requestedModel: "m",
  amount: unit(amount),
  // A quarter of a thousandth per output token, so that refusals over amounts carry a max_tokens hint.
  costOf: (maxTokens) => nanos(BigInt(maxTokens) * 250_000n),
  policy: { maxConcurrentRequests: world.maxConcurrent, dashboardUrl: "http://gateway.test" },
  leaseMs: 60_000,
  now,
});

const refusal = (error: AppError | null) =>
  error === null ? "admitted" : { kind: error.kind, message: error.message, retryAfterSeconds: error.retryAfterSeconds };
const outcome = (o: ReservationOutcome) => (o.ok ? "admitted" : refusal(o.error));

describeEachDialect("reservation: the store's SQL and core's decision agree", (dialect) => {
  const opened = useStore(dialect);

  /** Plants each drawn world as a new account and checks `property` on it. */
  const forEvery = <W extends ReservationWorld, X>(worlds: fc.Arbitrary<[W, X]>, property: (world: W, extra: X, holder: FundedKey, now: number) => Promise<void>) => {
    const now = Date.now();
    return fc.assert(
      fc.asyncProperty(worlds, async ([world, extra]) => {
        const { db, store } = opened();
        await property(world, extra, await plantReservationWorld(db, store, world, now), now);
      }),
      { numRuns: RUNS },
    );
  };
  const alone = <W>(worlds: fc.Arbitrary<W>) => worlds.map((w): [W, null] => [w, null]);
  const decide = (world: ReservationWorld, input: NewReservation, snapshot = snapshotOf(world, input.now)) =>
    decideReservation(snapshot, input, input.policy, input.now);

  test("on every state, the store admits or refuses a request as decideReservation does, with its message", () =>
    forEvery(alone(reservationWorld), async (world, _, holder, now) => {
      const input = requestFor(holder, world, world.amount, now);
      expect(outcome(await opened().store.reserve(input))).toEqual(refusal(decide(world, input)));
    }));

  if (dialect !== "postgres") return;

  // The batch is taken only for keys without limits; the account's safety limit sends a request on
  // to the full decision (null), as does any refusal, which the full decision words.
  const unlimited = reservationWorld.map((w) => ({ ...w, creditLimit: null, usdPerHour: null, requestsPerHour: null }));

  test("the batched statement admits one request exactly when core would, and leaves safety-limited accounts to the full path", () =>
    forEvery(alone(unlimited), async (world, _, holder, now) => {
      const input = requestFor(holder, world, world.amount, now);
      const [id] = await opened().db.run(admitMany([input]));
      expect(id !== null).toBe(decide(world, input) === null && world.spendLimit === null);
    }));

  test("the batched statement admits an account's requests all together exactly when core admits each in turn", () => {
    const amounts = fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 });
    return forEvery(fc.tuple(unlimited.map((w) => ({ ...w, spendLimit: null })), amounts), async (world, drawn, holder, now) => {
      const inputs = drawn.map((amount) => requestFor(holder, world, amount, now));
      let snapshot = snapshotOf(world, now);
      let admitsAll = true;
      for (const input of inputs) {
        admitsAll &&= decide(world, input, snapshot) === null;
        snapshot = { ...snapshot, inflight: snapshot.inflight + 1, available: nanos(snapshot.available - input.amount) };
      }
      const ids = await opened().db.run(admitMany(inputs));
      expect(ids.map((id) => id !== null)).toEqual(inputs.map(() => admitsAll));
    });
  });
});
