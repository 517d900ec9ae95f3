// The Responses API's stored state (core/responses/stored.ts): each response once, its items
// once, a conversation read back by walking its chain (on Postgres with one recursive query).
import type { ItemsPage, NewStoredResponse, ResponsesStore, StoredChain } from "../../core/responses/stored.ts";
import type { Database } from "../database.ts";
import { exec, first, rows, type Row, type Work } from "../sql.ts";

type Fields = Record<string, unknown>;
const parsed = (body: unknown): Fields => JSON.parse(String(body)) as Fields;

// The account that holds the request's API key, by the key's hash (its parameter): a later turn
// reads its conversation before its admission judges the key, so the lookup rides along.
const HOLDER = "(SELECT account_id FROM api_keys WHERE hash = ?)";

// The chain back from one response, newest first, `depth` 1 for itself. A link to a response
// that expired, was deleted or is another account's ends the chain there (on both dialects).
//
// Each step is a LATERAL subquery with LIMIT, which Postgres cannot flatten into a join: it
// stays a lookup by primary key even in a generic plan made while the tables were nearly
// empty. The plain join's generic plan, cached per connection from a fresh install's first
// executions, scanned every response item (35 ms at 100,000 items) until autovacuum's next
// ANALYZE.
const CHAIN = `WITH RECURSIVE chain(id, previous_id, depth) AS (
    SELECT id, previous_response_id, 1 FROM stored_responses WHERE id = ? AND account_id = ${HOLDER} AND expires_at > ?
  UNION ALL
    SELECT r.id, r.previous_response_id, c.depth + 1 FROM chain c CROSS JOIN LATERAL (
      SELECT id, previous_response_id FROM stored_responses WHERE id = c.previous_id AND account_id = ${HOLDER} AND expires_at > ? LIMIT 1) r
    WHERE c.depth <= ?
)`;

// Above any turn's item count (a request's input is bounded by its body): there only to keep the subquery apart.
const ITEMS_PER_TURN_BOUND = 1_000_000;

const chainOf = (bodies: string[]): StoredChain =>
  ({ items: bodies.map(parsed), bytes: bodies.reduce((sum, body) => sum + Buffer.byteLength(body, "utf8"), 0), truncated: false });
const TRUNCATED: StoredChain = { items: [], bytes: 0, truncated: true };

/**
 * Postgres: the chain in one round trip. One turn past the limit is read, to tell a chain of
 * exactly `maxTurns` from a longer one; a turn with no items still answers one row (null body),
 * so that the chain's length is known.
 */
function* responseChainAtOnce(keyHash: string, responseId: string, now: number, maxTurns: number): Work<StoredChain | null> {
  const found = yield* rows(
    `${CHAIN} SELECT c.depth, i.body FROM chain c LEFT JOIN LATERAL (
       SELECT body, position FROM response_items WHERE response_id = c.id ORDER BY position LIMIT ${ITEMS_PER_TURN_BOUND}) i ON true
     ORDER BY c.depth DESC, i.position`,
    responseId, keyHash, now, keyHash, now, maxTurns,
  );
  if (found.length === 0) return null;
  if (Number(found[0]!.depth) > maxTurns) return TRUNCATED;
  return chainOf(found.flatMap((row) => (row.body === null ? [] : [String(row.body)])));
}

/**
 * SQLite: the chain walked link by link, then each turn's items, by primary key. In process a
 * statement costs about a microsecond, while the recursive query's set-up alone cost ~25 µs
 * and its sort more (a second turn read its one earlier turn in ~40 µs, ~12 µs so).
 */
function* responseChainByLinks(keyHash: string, responseId: string, now: number, maxTurns: number): Work<StoredChain | null> {
  // The key's holder, found once rather than by a subquery at each link.
  const holder = yield* first("SELECT account_id FROM api_keys WHERE hash = ?", keyHash);
  if (!holder) return null;
  const accountId = String(holder.account_id);
  const turns: string[] = [];
  for (let next: string | null = responseId; next !== null && turns.length <= maxTurns;) {
    const row: Row | undefined = yield* first("SELECT previous_response_id FROM stored_responses WHERE id = ? AND account_id = ? AND expires_at > ?", next, accountId, now);
    if (!row) break;
    turns.push(next);
    next = (row.previous_response_id as string | null) ?? null;
  }
  if (turns.length === 0) return null;
  if (turns.length > maxTurns) return TRUNCATED;
  const bodies: string[] = [];
  for (const turn of turns.reverse()) {
    for (const row of yield* rows("SELECT body FROM response_items WHERE response_id = ? ORDER BY position", turn)) bodies.push(String(row.body));
  }
  return chainOf(bodies);
}

function* storedItems(keyHash: string, itemIds: readonly string[], now: number): Work<Map<string, Fields>> {
  const found = new Map<string, Fields>();
  for (const itemId of new Set(itemIds)) {
    const row = yield* first(
      `SELECT i.body FROM response_items i JOIN stored_responses r ON r.id = i.response_id
       WHERE i.account_id = ${HOLDER} AND i.item_id = ? AND r.expires_at > ? ORDER BY r.created_at DESC, i.position DESC LIMIT 1`,
      keyHash, itemId, now,
    );
    if (row) found.set(itemId, parsed(row.body));
  }
  return found;
}

const INSERT_RESPONSE = "INSERT INTO stored_responses (id, account_id, previous_response_id, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)";

/**
 * The response row's values, then its items' (input, then output). The output is kept once, as
 * its items: the row keeps `output: []` in its place (so that the fields keep their order) and
 * `storedResponse` puts the items back.
 */
function rowsOf(r: NewStoredResponse) {
  const response = [r.response.id, r.accountId, r.previousResponseId, JSON.stringify({ ...r.response, output: [] }), r.createdAt, r.expiresAt];
  const items = [
    ...r.input.map((stored) => ({ kind: "input", id: stored.id, body: JSON.stringify(stored.item) })),
    ...r.output.map((stored) => ({ kind: "output", id: stored.id, body: JSON.stringify(stored.item) })),
  ];
  return { response, items };
}

// Rows per INSERT on SQLite: one statement costs more than a row, and a bounded count keeps the
// number of statement texts (each prepared and cached) small and the parameters under the limit.
const ITEMS_PER_INSERT = 32;

function* saveResponseByChunks(r: NewStoredResponse): Work<void> {
  const { response, items } = rowsOf(r);
  yield* exec(INSERT_RESPONSE, ...response);
  for (let start = 0; start < items.length; start += ITEMS_PER_INSERT) {
    const chunk = items.slice(start, start + ITEMS_PER_INSERT);
    yield* exec(
      `INSERT INTO response_items (response_id, position, account_id, item_id, kind, body) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
      ...chunk.flatMap((item, index) => [r.response.id, start + index, r.accountId, item.id, item.kind, item.body]),
    );
  }
}

/** Postgres: the row and all its items in one statement, so one round trip and no transaction around it. */
function* saveResponseAtOnce(r: NewStoredResponse): Work<void> {
  const { response, items } = rowsOf(r);
  yield* exec(
    `WITH response AS (${INSERT_RESPONSE})
     INSERT INTO response_items (response_id, position, account_id, item_id, kind, body)
     SELECT ?, i.position, ?, i.item_id, i.kind, i.body FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[]) AS i(position, item_id, kind, body)`,
    ...response, r.response.id, r.accountId,
    items.map((_, position) => position), items.map((item) => item.id), items.map((item) => item.kind), items.map((item) => item.body),
  );
}

function* storedResponse(accountId: string, responseId: string, now: number): Work<Fields | null> {
  const row = yield* first("SELECT body FROM stored_responses WHERE id = ? AND account_id = ? AND expires_at > ?", responseId, accountId, now);
  if (!row) return null;
  const response = parsed(row.body);
  // A response stored with its output inside (before the output was kept once) keeps it there.
  if (Array.isArray(response.output) && response.output.length === 0) {
    const outputs = yield* rows("SELECT body FROM response_items WHERE response_id = ? AND kind = 'output' ORDER BY position", responseId);
    response.output = outputs.map((item) => parsed(item.body));
  }
  return response;
}

const owned = (accountId: string, responseId: string, now: number): Work<Row | undefined> =>
  first("SELECT 1 FROM stored_responses WHERE id = ? AND account_id = ? AND expires_at > ?", responseId, accountId, now);

function* deleteStoredResponse(accountId: string, responseId: string, now: number): Work<boolean> {
  if (!(yield* owned(accountId, responseId, now))) return false;
  yield* exec("DELETE FROM response_items WHERE response_id = ?", responseId);
  yield* exec("DELETE FROM stored_responses WHERE id = ?", responseId);
  return true;
}

function* responseInputItems(accountId: string, responseId: string, now: number, page: ItemsPage): Work<{ items: Fields[]; hasMore: boolean } | null> {
  if (!(yield* owned(accountId, responseId, now))) return null;
  const direction = page.order === "asc" ? "ASC" : "DESC";
  const inputs = yield* rows(`SELECT item_id, position, body FROM response_items WHERE response_id = ? AND kind = 'input' ORDER BY position ${direction}`, responseId);
  // A response has at most a few hundred input items: paged here rather than by a keyset.
  const start = page.after === undefined ? 0 : inputs.findIndex((row) => row.item_id === page.after) + 1;
  const slice = start === 0 && page.after !== undefined ? [] : inputs.slice(start, start + page.limit);
  // Listed under the id each is known by, as OpenAI lists them.
  return { items: slice.map((row) => ({ id: row.item_id, ...parsed(row.body) })), hasMore: start + page.limit < inputs.length && slice.length > 0 };
}

/**
 * Expired responses by their expiry's index, then deleted accounts' by the account's: each a
 * range of an index, never a scan of every stored response (accounts are deleted by a mark,
 * never removed).
 */
function* sweepStoredResponses(now: number, limit: number): Work<number> {
  const expired = yield* rows("SELECT id FROM stored_responses WHERE expires_at <= ? LIMIT ?", now, limit);
  const orphaned = expired.length < limit
    // CROSS JOIN keeps SQLite's planner to this order (accounts, then their responses by index):
    // without statistics it would walk every response and look its account up.
    ? yield* rows(
      `SELECT r.id FROM accounts a CROSS JOIN stored_responses r
       WHERE r.account_id = a.id AND a.deleted_at IS NOT NULL LIMIT ?`,
      limit - expired.length,
    )
    : [];
  const gone = new Set([...expired, ...orphaned].map((row) => String(row.id)));
  for (const id of gone) {
    yield* exec("DELETE FROM response_items WHERE response_id = ?", id);
    yield* exec("DELETE FROM stored_responses WHERE id = ?", id);
  }
  return gone.size;
}

export const responsesStore = (db: Database): ResponsesStore => ({
  responseChain: (keyHash, responseId, now, maxTurns) =>
    db.run((db.dialect === "sqlite" ? responseChainByLinks : responseChainAtOnce)(keyHash, responseId, now, maxTurns)),
  storedItems: (keyHash, itemIds, now) => db.run(storedItems(keyHash, itemIds, now)),
  saveResponse: (response) => (db.dialect === "sqlite" ? db.transaction(saveResponseByChunks(response)) : db.run(saveResponseAtOnce(response))),
  storedResponse: (accountId, responseId, now) => db.run(storedResponse(accountId, responseId, now)),
  deleteStoredResponse: (accountId, responseId, now) => db.transaction(deleteStoredResponse(accountId, responseId, now)),
  responseInputItems: (accountId, responseId, now, page) => db.run(responseInputItems(accountId, responseId, now, page)),
  sweepStoredResponses: (now, limit) => db.transaction(sweepStoredResponses(now, limit)),
});
