// The minimal ledger relay of bench/pg-floor.ts: Bun's fetch proxy plus only the writes a
// durable prepaid charge needs (DESIGN.md "Money and the ledger"), on the gateway's own tables,
// in the fewest Postgres round trips:
//   FLOOR_STEPS=relay    the bare relay (as bench/baseline-proxy.ts)
//   FLOOR_STEPS=charge   + after the answer, one statement committed durably before replying:
//                        the ledger entry, the balance and the usage-log row
//   FLOOR_STEPS=ledger   + before forwarding, one statement that finds the key by its hash,
//                        checks the balance, holds the amount and writes the reservation row
//                        (asynchronous commit, as the gateway's admission); the charge then
//                        also removes the reservation and the hold
//   FLOOR_STEPS=complete + in the charge, what a key's limits read (DESIGN.md: its credit
//                        limit, hourly limits as hard caps): its counters and two minute buckets
// No parsing, validation, pricing, limits, logging or metrics: the floor under all of them.
import { hashKey } from "../src/core/keys/secret.ts";
import { SQL } from "bun";

const { UPSTREAM_URL: upstream, DATABASE_URL: databaseUrl, FLOOR_STEPS: steps = "relay" } = process.env;
if (!upstream || !databaseUrl) throw new Error("UPSTREAM_URL and DATABASE_URL are required");
const sql = new SQL(databaseUrl, { max: 4, bigint: true });
// The funded account and key that bench/pg-floor.ts made through the gateway's CLI.
const [FLOOR_KEY, FLOOR_ACCOUNT] = (({ id, account_id }) => [id, account_id])((await sql.unsafe("SELECT id, account_id FROM api_keys"))[0]);

const HOLD = `WITH async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true) = 'off' AS off),
  key AS (SELECT k.id, k.account_id FROM api_keys k WHERE k.hash = $1 AND k.revoked_at IS NULL AND (SELECT off FROM async_commit)),
  held AS (UPDATE accounts a SET reserved_nanos = a.reserved_nanos + $2, inflight = a.inflight + 1
    FROM key WHERE a.id = key.account_id AND a.balance_nanos - a.reserved_nanos >= $2 RETURNING a.id)
  INSERT INTO reservations (id, account_id, key_id, model, requested_model, amount_nanos, created_at, lease_expires_at)
  SELECT $3, key.account_id, key.id, 'gpt-4.1-nano', 'gpt-4.1-nano', $2, $4, $4 + 300000 FROM key JOIN held ON held.id = key.account_id
  RETURNING account_id, key_id`;
const LEDGER = `INSERT INTO ledger_entries (id, account_id, kind, amount_nanos, idempotency_key, note, created_at)
    VALUES ($2, $1, 'charge', -$3, 'charge:' || $2, NULL, $5) RETURNING id`;
const LOG = `INSERT INTO usage_logs (id, account_id, key_id, created_at, model, requested_model, prompt_tokens, completion_tokens,
    cost_nanos, latency_ms, status, error) SELECT $2, $1, $4, $5, 'gpt-4.1-nano', 'gpt-4.1-nano', 24, 20, $3, 1, 'success', NULL
    WHERE (SELECT COUNT(*) FROM charged) > 0`;
const CHARGE = `WITH charged AS (${LEDGER}),
  debited AS (UPDATE accounts SET balance_nanos = balance_nanos - $3 WHERE id = $1 AND (SELECT COUNT(*) FROM charged) > 0)
  ${LOG}`;
const SETTLED = `taken AS (DELETE FROM reservations WHERE id = $2 RETURNING amount_nanos),
  charged AS (${LEDGER}),
  debited AS (UPDATE accounts SET balance_nanos = balance_nanos - $3, reserved_nanos = reserved_nanos - (SELECT amount_nanos FROM taken),
    inflight = inflight - 1 WHERE id = $1 AND (SELECT COUNT(*) FROM charged) > 0)`;
const SETTLE = `WITH ${SETTLED} ${LOG}`;

// The same, also writing what the key's limits and the hourly windows read (DESIGN.md: a key's
// credit limit, and hourly limits as hard caps): the key's counters and two minute buckets.
const SETTLE_COMPLETE = `WITH ${SETTLED},
  key AS (UPDATE api_keys SET total_spend_nanos = total_spend_nanos + $3, total_requests = total_requests + 1, last_used_at = $5
    WHERE id = $4 AND (SELECT COUNT(*) FROM charged) > 0),
  windows AS (INSERT INTO usage_windows (scope, minute, spend_nanos, requests)
    SELECT scope, $6, $3, requests FROM (VALUES ('a:' || $1, 0), ('k:' || $4, 1)) AS w(scope, requests) WHERE (SELECT COUNT(*) FROM charged) > 0
    ON CONFLICT (scope, minute) DO UPDATE SET spend_nanos = usage_windows.spend_nanos + excluded.spend_nanos,
      requests = usage_windows.requests + excluded.requests)
  ${LOG}`;

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const secret = request.headers.get("authorization")?.slice("Bearer ".length) ?? "";
    const body = await request.arrayBuffer();
    const id = Bun.randomUUIDv7();
    let holder: { account_id: string; key_id: string } | undefined;
    if (steps === "ledger" || steps === "complete") {
      [holder] = await sql.unsafe(HOLD, [hashKey(secret), 50_000n, id, Date.now()]);
      if (!holder) return new Response("no key or no balance", { status: 402 });
    }
    const response = await fetch(`${upstream}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer upstream-key" },
      body,
    });
    const answer = await response.arrayBuffer();
    if (steps === "charge") await sql.unsafe(CHARGE, [FLOOR_ACCOUNT, id, 12_000n, FLOOR_KEY, Date.now()]);
    if (holder && steps === "ledger") await sql.unsafe(SETTLE, [holder.account_id, id, 12_000n, holder.key_id, Date.now()]);
    if (holder && steps === "complete") {
      const now = Date.now();
      await sql.unsafe(SETTLE_COMPLETE, [holder.account_id, id, 12_000n, holder.key_id, now, Math.floor(now / 60_000)]);
    }
    return new Response(answer, { status: response.status, headers: { "content-type": "application/json" } });
  },
});
console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.port}` }));
