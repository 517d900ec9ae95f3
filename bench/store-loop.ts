// The database's share of a chat request, without HTTP: what the store alone costs per request.
//   bun bench/store-loop.ts [sqlite|postgres] [in flight] [seconds] [stored]
// Keeps `in flight` requests going, each a key lookup, a reservation and a settlement (what a
// chat request asks of the store), over 100 funded accounts, and prints requests/s and this
// process's CPU per request. With `stored`, each request also keeps its Responses turn (the
// stored response and its items, as the door saves a first turn): the floor of a stored turn.
// Compare with the CPU per request of the baseline proxy in `make bench`: the gateway cannot
// cost less than this plus the proxy hop.
import { generateKeySecret, hashKey, keyPrefix } from "../src/core/keys/secret.ts";
import { nanos } from "../src/core/money.ts";
import { fromCompletion } from "../src/core/responses/response.ts";
import { parseResponsesRequest } from "../src/core/responses/request.ts";
import { newResponseId, storedTurn } from "../src/core/responses/stored.ts";
import { openDatabase } from "../src/db/database.ts";
import { migrate } from "../src/db/migrate.ts";
import { createStore } from "../src/db/store/index.ts";
import { freshDatabase, type Dialect } from "./setup.ts";
import { NO_SEAL } from "../src/core/reasoning-seal.ts";

const [dialect = "sqlite", inFlightArg = "64", secondsArg = "3", variant = "chat"] = process.argv.slice(2);
const stored = variant === "stored";
const inFlight = Number(inFlightArg);
const seconds = Number(secondsArg);
const ACCOUNTS = 100;

const database = await freshDatabase(dialect as Dialect, "gw_bench_store_loop");
const db = openDatabase(database.url);
await migrate(db);
const store = createStore(db);
const secrets: string[] = [];
for (let i = 0; i < ACCOUNTS; i++) {
  const account = await store.createAccount({
    email: `loop-${i}@bench.local`,
    passwordHash: null,
    initialCredits: { amount: nanos(100_000_000_000_000n), note: "store loop" },
    now: Date.now(),
  });
  if (!account) throw new Error("could not create an account");
  const secret = generateKeySecret();
  await store.createKey({
    accountId: account.id, name: "loop", prefix: keyPrefix(secret), hash: hashKey(secret), origin: "cli",
    expiresAt: null, creditLimit: null, usdPerHour: null, requestsPerHour: null, now: Date.now(),
  });
  secrets.push(secret);
}

// The bench's Responses turn (bench/setup.ts) answered by the fake upstream's completion.
const turn = parseResponsesRequest({ model: "llama-4-scout", input: "Say hello in twenty words.", max_output_tokens: 32 });
const completion = {
  id: "chatcmpl-bench", object: "chat.completion", created: 1_700_000_000, model: "llama-4-scout",
  choices: [{ index: 0, message: { role: "assistant", content: "word ".repeat(20).trim() }, finish_reason: "stop" }],
  usage: { prompt_tokens: 24, completion_tokens: 20, total_tokens: 44 },
};
const own = [{ role: "user", content: turn.input as string }];
function keepTurn(accountId: string): Promise<void> {
  const id = newResponseId();
  const response = fromCompletion(completion, turn, id, NO_SEAL) as Record<string, unknown> & { id: string };
  return store.saveResponse(storedTurn(accountId, response, own, turn, Date.now(), 30 * 86_400_000, NO_SEAL));
}

let done = 0;
let next = 0;
const policy = { maxConcurrentRequests: 3, dashboardUrl: "http://127.0.0.1/dashboard" };
async function oneRequest(): Promise<void> {
  const found = await store.findKeyByHash(hashKey(secrets[next++ % ACCOUNTS] as string));
  if (!found) throw new Error("key not found");
  const now = Date.now();
  const amount = nanos(50_000n);
  const reserved = await store.reserve({
    account: found.account, key: found.key, model: "gpt-4.1-nano", requestedModel: "gpt-4.1-nano", amount, policy, leaseMs: 300_000, now,
  });
  if (!reserved.ok) return;
  await store.settle({
    reservationId: reserved.reservationId, accountId: found.key.accountId, keyId: found.key.id, model: "gpt-4.1-nano",
    requestedModel: "gpt-4.1-nano", promptTokens: 24, completionTokens: 20, cost: nanos(12_000n), latencyMs: 1, now: Date.now(),
  });
  if (stored) await keepTurn(found.key.accountId);
  done++;
}

async function worker(until: number): Promise<void> {
  while (performance.now() < until) await oneRequest();
}

await Promise.all(Array.from({ length: inFlight }, () => worker(performance.now() + 1000))); // warm-up
done = 0;
const cpuBefore = process.cpuUsage();
const started = performance.now();
await Promise.all(Array.from({ length: inFlight }, () => worker(started + seconds * 1000)));
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
console.log(`store alone${stored ? " with a stored turn" : ""}, ${dialect}, ${inFlight} in flight: ${(done / elapsed).toFixed(0)} requests/s, ${((cpu.user + cpu.system) / done).toFixed(1)} µs CPU/request`);
await db.close();
await database.drop();
