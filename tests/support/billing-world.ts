// Random states of one account and key, planted straight into the tables, for the property
// tests that hold the store's SQL to core's rules (tests/db/billing.*.properties.test.ts).
import fc from "fast-check";
import { generateKeySecret, hashKey, keyPrefix } from "../../src/core/keys/secret.ts";
import { nanos, type Nanos } from "../../src/core/money.ts";
import { minuteOf, WINDOW_MINUTES, type HourWindow } from "../../src/core/billing/hour-window.ts";
import type { ApiKey } from "../../src/core/store.ts";
import type { Store } from "../../src/core/ports.ts";
import type { Database } from "../../src/db/database.ts";
import { exec, type Work } from "../../src/db/sql.ts";
import { fundedKey, type FundedKey } from "./accounts.ts";

// Amounts are small counts of thousandths of a dollar, so that sums often land exactly on a limit.
/** `count` thousandths of a dollar. */
export const unit = (count: number): Nanos => nanos(BigInt(count) * 1_000_000n);
const units = (max: number) => fc.integer({ min: 0, max });
const orNull = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 3 });

/** A settled minute of usage, `ago` minutes before now (60 or more: outside the rolling hour). */
interface Bucket {
  ago: number;
  spend: number;
  requests: number;
}
const buckets = fc.array(fc.record({ ago: fc.integer({ min: 0, max: 65 }), spend: units(8), requests: units(3) }), { maxLength: 4 });

/** An account's state before one more request asks to reserve `amount`. */
export const reservationWorld = fc.record({
  balance: units(40),
  /** Open reservations of the account's other keys. */
  otherReserved: units(10),
  otherInflight: units(4),
  /** Open reservations of this key. */
  keyOpen: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }),
  keySpent: units(20),
  accountBuckets: buckets,
  keyBuckets: buckets,
  spendLimit: orNull(units(30)),
  creditLimit: orNull(units(40)),
  usdPerHour: orNull(units(30)),
  requestsPerHour: orNull(units(8)),
  maxConcurrent: fc.integer({ min: 1, max: 6 }),
  amount: units(12),
});
export type ReservationWorld = typeof reservationWorld extends fc.Arbitrary<infer W> ? W : never;

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The rolling hour ending at `now` over `planted` buckets, worked out here rather than by the store. */
export function windowOf(planted: Bucket[], now: number): HourWindow {
  const inside = planted.filter((b) => b.ago < WINDOW_MINUTES);
  const agos = [...new Set(inside.map((b) => b.ago))].sort((a, b) => b - a);
  return agos.map((ago) => {
    const at = inside.filter((b) => b.ago === ago);
    return { minute: minuteOf(now) - ago, spend: unit(sum(at.map((b) => b.spend))), requests: sum(at.map((b) => b.requests)) };
  });
}

function* insertReservation(id: string, holder: FundedKey, amount: Nanos, now: number): Work<void> {
  yield* exec(
    `INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
     VALUES (?, ?, ?, 'm', 'm', ?, ?, ?)`,
    id, holder.account.id, holder.key.id, amount, now, now + 60_000,
  );
}

function* insertBuckets(scope: string, planted: Bucket[], now: number): Work<void> {
  const byMinute = new Map<number, { spend: number; requests: number }>();
  for (const b of planted) {
    const at = byMinute.get(b.ago) ?? { spend: 0, requests: 0 };
    byMinute.set(b.ago, { spend: at.spend + b.spend, requests: at.requests + b.requests });
  }
  for (const [ago, b] of byMinute) {
    yield* exec(
      "INSERT INTO usage_windows (scope, minute, spend_nanos, requests) VALUES (?, ?, ?, ?)",
      scope, minuteOf(now) - ago, unit(b.spend), b.requests,
    );
  }
}

/** A new account and key in the state `world` describes at `now`. */
export async function plantReservationWorld(db: Database, store: Store, world: ReservationWorld, now: number): Promise<FundedKey> {
  const holder = await fundedKey(store, "0");
  await db.transaction(
    (function* () {
      yield* exec(
        "UPDATE accounts SET balance_nanos = ?, reserved_nanos = ?, inflight = ?, spend_limit_nanos = ? WHERE id = ?",
        unit(world.balance), unit(world.otherReserved + sum(world.keyOpen)), world.otherInflight + world.keyOpen.length,
        world.spendLimit === null ? null : unit(world.spendLimit), holder.account.id,
      );
      yield* exec("UPDATE api_keys SET total_spend_nanos = ? WHERE id = ?", unit(world.keySpent), holder.key.id);
      for (const amount of world.keyOpen) yield* insertReservation(Bun.randomUUIDv7(), holder, unit(amount), now);
      yield* insertBuckets(`a:${holder.account.id}`, world.accountBuckets, now);
      yield* insertBuckets(`k:${holder.key.id}`, world.keyBuckets, now);
    })(),
  );
  return holder;
}

/** Charges of `cost` for reservations of `reserved`; a late one's reservation was already swept. */
export const settlementWorld = fc.record({
  balance: units(300),
  threshold: orNull(units(300)),
  armed: fc.boolean(),
  charges: fc.array(
    fc.record({ cost: units(80), reserved: units(80), late: fc.integer({ min: 0, max: 4 }).map((n) => n === 0), secondKey: fc.boolean() }),
    { minLength: 1, maxLength: 6 },
  ),
});
export type SettlementWorld = typeof settlementWorld extends fc.Arbitrary<infer W> ? W : never;

/** A new account with two keys in the state `world` describes, and its charges' reservation IDs. */
export async function plantSettlementWorld(db: Database, store: Store, world: SettlementWorld, now: number) {
  const holder = await fundedKey(store, "0");
  const secret = generateKeySecret();
  const second: ApiKey = await store.createKey({
    accountId: holder.account.id, name: "second", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
    expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now,
  });
  const ids = world.charges.map(() => Bun.randomUUIDv7());
  const open = world.charges.filter((c) => !c.late);
  await db.transaction(
    (function* () {
      yield* exec(
        "UPDATE accounts SET balance_nanos = ?, reserved_nanos = ?, inflight = ?, alert_threshold_nanos = ?, alert_armed = ? WHERE id = ?",
        unit(world.balance), unit(sum(open.map((c) => c.reserved))), open.length,
        world.threshold === null ? null : unit(world.threshold), world.armed ? 1 : 0, holder.account.id,
      );
      for (const [i, c] of world.charges.entries()) {
        if (!c.late) yield* insertReservation(ids[i] as string, c.secondKey ? { ...holder, key: second } : holder, unit(c.reserved), now);
      }
    })(),
  );
  return { holder, keys: [holder.key.id, second.id], ids };
}
