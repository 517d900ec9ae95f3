import type { Command } from "commander";
import {
  issueKey, KEY_ROTATED, keyCreatedView, knownModels, parseKeyChange, parseKeyKind, parseNewKey, revokeKey, rotateKey, type KeyField, type Parsed,
} from "../../core/keys/rules.ts";
import { keyStatus } from "../../core/keys/secret.ts";
import type { ApiKey } from "../../core/store.ts";
import type { Store } from "../../core/ports.ts";
import { cliActor, withStore } from "../context.ts";
import { CliError, exactUsd, exactUsdOrNull, printRecords, printResult, type Output } from "../output.ts";
import { readUsd } from "../../core/money.ts";
import { requireAccount } from "../args.ts";
import { keyRecord } from "../records.ts";

interface KeyFlags {
  name?: string;
  expires?: string;
  creditLimit?: string;
  usdPerHour?: string;
  requestsPerHour?: string;
  models?: string;
  ips?: string;
  management?: boolean;
}

/** The CLI acts as the operator: audit events carry no IP, and name `cli` and the OS user. */
const operator = () => ({ ip: null, operator: cliActor() });

/** The table `keys list` prints, its money exact; --json prints each key as `GET /keys` lists it. */
const keyColumns = (now: number): Record<string, (k: ApiKey) => string | number> => ({
  id: (k) => k.id,
  name: (k) => k.name,
  prefix: (k) => k.prefix,
  status: (k) => keyStatus(k, now),
  expires: (k) => (k.expiresAt === null ? "-" : new Date(k.expiresAt).toISOString()),
  "credit limit USD": (k) => exactUsdOrNull(k.creditLimit) ?? "-",
  "USD/hour": (k) => exactUsdOrNull(k.usdPerHour) ?? "-",
  "requests/hour": (k) => k.requestsPerHour ?? "-",
  models: (k) => (k.kind === "management" ? "management key" : k.allowedModels?.join(",") ?? "any"),
  IPs: (k) => k.allowedIps?.join(",") ?? "any",
  requests: (k) => k.totalRequests,
  "spend USD": (k) => exactUsd(k.totalSpend),
});

const FLAG_OF: Record<KeyField | "management", string> = {
  name: "--name",
  expiresAt: "--expires",
  creditLimitUsd: "--credit-limit",
  rateLimitUsdPerHour: "--usd-per-hour",
  rateLimitRequestsPerHour: "--requests-per-hour",
  allowedModels: "--models",
  allowedIps: "--ips",
  management: "--management",
};

// "none" clears a value; numbers must be plain decimals (Number() would also take "0x10" or "").
// The key rules judge numbers, as the API sends them: a flag becomes one only once it is read
// as the API's decimal would be, USD amounts by the one money parser (a finer amount than it
// takes is passed on, for the rules to name the decimal places allowed).
const CLEAR = "none";
const flagNumber = (raw: string | undefined, usd: boolean): number | null | undefined => {
  if (raw === undefined || raw === CLEAR) return raw === CLEAR ? null : undefined;
  if (!usd) return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  const read = readUsd(raw);
  return read.ok || read.refusal === "precision" ? Number(raw) : Number.NaN;
};

/** A comma-separated list; "none" clears it. */
const flagList = (raw: string | undefined): string[] | null | undefined =>
  raw === undefined || raw === CLEAR ? (raw === CLEAR ? null : undefined) : raw.split(",").map((entry) => entry.trim()).filter(Boolean);

/** The flags as the API's request fields, so that the one set of key rules in core judges both. */
const asRequestFields = (flags: KeyFlags): Record<string, unknown> => ({
  name: flags.name,
  expiresAt: flags.expires === CLEAR ? null : flags.expires,
  creditLimitUsd: flagNumber(flags.creditLimit, true),
  rateLimitUsdPerHour: flagNumber(flags.usdPerHour, true),
  rateLimitRequestsPerHour: flagNumber(flags.requestsPerHour, false),
  allowedModels: flagList(flags.models),
  allowedIps: flagList(flags.ips),
  management: flags.management,
});

function accepted<T>(parsed: Parsed<T>): T {
  if (!parsed.ok) throw new CliError(`${FLAG_OF[parsed.field]} ${parsed.reason}`);
  return parsed.value;
}

async function requireKey(store: Store, id: string): Promise<ApiKey> {
  const key = await store.findKey(id);
  if (!key) throw new CliError(`no key with id "${id}" (see: gateway keys list --email E)`);
  return key;
}

/** Applies a key change and audits it as `key_updated`, naming what changed. */
async function updateKey(store: Store, id: string, change: Parameters<Store["updateKey"]>[2], now: number): Promise<ApiKey> {
  const key = await store.updateKey((await requireKey(store, id)).accountId, id, change);
  if (!key) throw new CliError(`no key with id "${id}"`);
  await store.recordAudit({
    accountId: key.accountId, type: "key_updated", ip: null, at: now,
    detail: `"${key.name}" (${key.prefix}…): ${Object.keys(change).join(", ")} by ${cliActor()}`,
  });
  return key;
}

const limitFlags = (command: Command, clearable: boolean): Command => {
  const clear = clearable ? `; "${CLEAR}" clears it` : "";
  return command
    .option("--name <name>", "label")
    .option("--expires <iso>", `expiry, ISO 8601 with a time zone${clear}`)
    .option("--credit-limit <usd>", `lifetime spend cap in USD${clear}`)
    .option("--usd-per-hour <usd>", `hourly spend ceiling in USD${clear}`)
    .option("--requests-per-hour <n>", `hourly request ceiling${clear}`)
    .option("--models <ids>", `the only catalog models the key may use, comma-separated${clear}`)
    .option("--ips <ranges>", `the only addresses or CIDR ranges it may be used from, comma-separated${clear}`);
};

export function registerKeys(program: Command, output: () => Output): void {
  const keys = program.command("keys").description("API keys: create, list, rotate, revoke, update");

  limitFlags(keys.command("create").description("issue a key; its secret is printed once"), false)
    .requiredOption("--email <email>", "the owner's e-mail")
    .option("--management", "a management key (gw-mgmt-…) for the account endpoints, instead of an API key")
    .action(async (opts: KeyFlags & { email: string }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        const now = Date.now();
        const request = asRequestFields(opts);
        const fields = accepted(parseNewKey(request, now));
        const kind = accepted(parseKeyKind(request, fields));
        accepted(await knownModels(fields.allowedModels, store));
        const { key, secret } = await issueKey(store, { accountId: account.id, fields, kind, origin: "cli", now, ...operator() });
        // POST /keys's answer, and the id the other keys commands name the key by.
        const created = { id: key.id, ...keyCreatedView(key, secret) };
        printResult(output(), created, `${secret}\nkey ${key.id} ("${key.name}") for ${account.email}. ${created.message}`);
      }),
    );

  keys
    .command("list")
    .description("an account's keys, newest first, in every state")
    .requiredOption("--email <email>", "the owner's e-mail")
    .action(async (opts: { email: string }) =>
      withStore({}, async ({ store }) => {
        const account = await requireAccount(store, opts.email);
        const now = Date.now();
        printRecords(output(), await store.listKeys(account.id), (key) => keyRecord(key, now), keyColumns(now));
      }),
    );

  keys
    .command("rotate <keyId>")
    .description("revoke a key and issue its replacement (same name, expiry and limits); prints the new secret once")
    .action(async (id: string) =>
      withStore({}, async ({ store }) => {
        const old = await requireKey(store, id);
        const { key, secret } = await rotateKey(store, old.accountId, id, Date.now(), operator());
        // POST /keys/{id}/rotate's answer, and the replacement's id.
        printResult(output(), { id: key.id, key: secret, message: KEY_ROTATED }, `${secret}\nkey ${id} revoked; replacement ${key.id}. ${KEY_ROTATED}`);
      }),
    );

  keys
    .command("revoke <keyId>")
    .description("revoke a key: it is refused from the next request on")
    .action(async (id: string) =>
      withStore({}, async ({ store }) => {
        const now = Date.now();
        const key = await revokeKey(store, (await requireKey(store, id)).accountId, id, now, operator());
        if (!key) throw new CliError(`key ${id} is already revoked`);
        printResult(output(), keyRecord(key, now), `key ${id} revoked`);
      }),
    );

  limitFlags(keys.command("update <keyId>").description("change a key's name, expiry or limits"), true)
    .action(async (id: string, opts: KeyFlags) =>
      withStore({}, async ({ store }) => {
        const now = Date.now();
        const change = accepted(parseKeyChange(asRequestFields(opts), now));
        accepted(await knownModels(change.allowedModels, store));
        const key = await updateKey(store, id, change, now);
        printResult(output(), keyRecord(key, now), `key ${id} updated`);
      }),
    );
}
