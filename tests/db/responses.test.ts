// The stored responses' store on both dialects: a conversation read back by its chain, bounded
// in turns; references by item id; another account's and expired state not found; the sweeper
// removing what retention and deleted accounts leave.
import { expect, test } from "bun:test";
import { MAX_CHAIN_TURNS, storedTurn } from "../../src/core/responses/stored.ts";
import { exec, rows } from "../../src/db/sql.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";
import { NO_SEAL } from "../../src/core/reasoning-seal.ts";

const NOW = Date.UTC(2026, 5, 1, 12);
const DAY = 86_400_000;
const say = (text: string) => ({ role: "user", content: text });
const answer = (id: string, text: string) => ({ id, type: "message", role: "assistant", content: [{ type: "output_text", text }] });

describeEachDialect("the stored responses store", (dialect) => {
  const opened = useStore(dialect);

  /** The hash of a new API key of `accountId`: a conversation is read for the key's holder. */
  async function keyOf(accountId: string): Promise<string> {
    const hash = `hash-${crypto.randomUUID()}`;
    await opened().db.transaction(exec(
      "INSERT INTO api_keys (id, account_id, name, prefix, hash, origin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      crypto.randomUUID(), accountId, "test", "gw-test", hash, "cli", NOW,
    ));
    return hash;
  }

  /** Stores a turn (`said` → `answered`) continuing `previous`, kept for `days`. */
  async function turn(accountId: string, id: string, previous: string | null, said: string, answered: string, days = 30, at = NOW) {
    const { store } = opened();
    const response = { id, object: "response", output: [answer(`msg_${id}`, answered)] };
    await store.saveResponse(storedTurn(accountId, response, [say(said)], { model: "m", input: said, previous_response_id: previous }, at, days * DAY, NO_SEAL));
  }

  test("a chain reads back oldest first, each turn's input then output; another account's is not found", async () => {
    const { store } = opened();
    const account = crypto.randomUUID();
    await turn(account, "resp_a1", null, "one", "first");
    await turn(account, "resp_a2", "resp_a1", "two", "second");
    const items = [say("one"), answer("msg_resp_a1", "first"), say("two"), answer("msg_resp_a2", "second")];
    expect(await store.responseChain(await keyOf(account), "resp_a2", NOW + 1, MAX_CHAIN_TURNS)).toEqual({
      items,
      bytes: items.reduce((sum, item) => sum + JSON.stringify(item).length, 0),
      truncated: false,
    });
    expect(await store.responseChain(await keyOf(crypto.randomUUID()), "resp_a2", NOW + 1, MAX_CHAIN_TURNS)).toBeNull();
    expect(await store.responseChain("hash-of-no-key", "resp_a2", NOW + 1, MAX_CHAIN_TURNS)).toBeNull();
    expect(await store.storedResponse(crypto.randomUUID(), "resp_a2", NOW + 1)).toBeNull();
    expect(await store.deleteStoredResponse(crypto.randomUUID(), "resp_a2", NOW + 1)).toBe(false);
  });

  test("a chain longer than the limit says so; one of exactly the limit reads whole", async () => {
    const { store } = opened();
    const account = crypto.randomUUID();
    for (let i = 0; i <= 5; i++) await turn(account, `resp_c${i}`, i === 0 ? null : `resp_c${i - 1}`, `q${i}`, `a${i}`);
    expect((await store.responseChain(await keyOf(account), "resp_c5", NOW + 1, 6))!.items).toHaveLength(12);
    expect(await store.responseChain(await keyOf(account), "resp_c5", NOW + 1, 5)).toEqual({ items: [], bytes: 0, truncated: true });
  });

  test("items are found by id, the latest of an id; generated ids for input items sent without one", async () => {
    const { store } = opened();
    const account = crypto.randomUUID();
    await turn(account, "resp_i1", null, "hello", "hi");
    const found = await store.storedItems(await keyOf(account), ["msg_resp_i1", "msg_i1_0", "msg_nope"], NOW + 1);
    expect(found).toEqual(new Map<string, unknown>([["msg_resp_i1", answer("msg_resp_i1", "hi")], ["msg_i1_0", say("hello")]]) as never);
    const page = await store.responseInputItems(account, "resp_i1", NOW + 1, { limit: 20, order: "desc" });
    expect(page).toEqual({ items: [{ id: "msg_i1_0", ...say("hello") }], hasMore: false });
  });

  test("a response reads back as saved, its output kept once (as items), in many rows' inserts", async () => {
    const { db, store } = opened();
    const account = crypto.randomUUID();
    const said = Array.from({ length: 70 }, (_, i) => say(`line ${i}`));
    const output = [answer("msg_out_a", "one"), answer("msg_out_b", "two")];
    const response = { id: "resp_many", object: "response", status: "completed", output, usage: { input_tokens: 3 } };
    await store.saveResponse(storedTurn(account, response, said, { model: "m", input: said as never }, NOW, DAY, NO_SEAL));
    expect(await store.storedResponse(account, "resp_many", NOW + 1)).toEqual(response);
    const [row] = await db.run(rows("SELECT body FROM stored_responses WHERE id = ?", "resp_many"));
    expect(JSON.parse(String(row!.body)).output).toEqual([]);
    const chain = await store.responseChain(await keyOf(account), "resp_many", NOW + 1, MAX_CHAIN_TURNS);
    expect(chain!.items).toEqual([...said, ...output]);
    const last = await store.responseInputItems(account, "resp_many", NOW + 1, { limit: 100, order: "asc" });
    expect(last!.items.map((item) => item.content)).toEqual(said.map((item) => item.content));
    // A response stored with its output inside its row reads back with that output.
    await db.transaction(exec(
      "INSERT INTO stored_responses (id, account_id, previous_response_id, body, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
      "resp_whole", account, null, JSON.stringify({ ...response, id: "resp_whole" }), NOW, NOW + DAY,
    ));
    expect(await store.storedResponse(account, "resp_whole", NOW + 1)).toEqual({ ...response, id: "resp_whole" });
  });

  test("expired state is not read, and the sweeper removes it and a deleted account's", async () => {
    const { store } = opened();
    const expired = crypto.randomUUID();
    await turn(expired, "resp_old", null, "old", "gone", 1, NOW - 2 * DAY);
    expect(await store.storedResponse(expired, "resp_old", NOW)).toBeNull();
    const owner = await store.createAccount({ email: `${crypto.randomUUID()}@example.com`, passwordHash: null, now: NOW });
    await turn(owner!.id, "resp_del", null, "mine", "kept");
    expect(await store.storedResponse(owner!.id, "resp_del", NOW)).not.toBeNull();
    await store.updateAccount(owner!.id, { deletedAt: NOW } as never);
    expect(await store.sweepStoredResponses(NOW, 1_000)).toBeGreaterThanOrEqual(2);
    expect(await store.storedResponse(owner!.id, "resp_del", NOW)).toBeNull();
    expect(await store.storedItems(await keyOf(expired), ["msg_resp_old"], 0)).toEqual(new Map());
  });
});
