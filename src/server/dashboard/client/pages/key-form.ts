import { field, optionalAmount, optionalWholeNumber, type Field } from "../fields.ts";
import { plainDecimal } from "../format.ts";
import type { KeyView } from "../wire.ts";

const MAX_LIMIT_USD = 1_000_000;
const MAX_REQUESTS_PER_HOUR = 1_000_000_000;
const NAME_MAX_LENGTH = 100;

const pad = (n: number) => String(n).padStart(2, "0");
/** An ISO time as a datetime-local input's value, in the browser's time zone. */
function localInput(iso: string | null): string {
  if (iso === null) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "a, b c" → ["a", "b", "c"]: a list typed into one field. */
const listOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

interface KeyForm {
  fields: Field[];
  /** The fields given, for `POST /keys/generate` (an empty field is left out: no expiry, no limit). */
  newKey(): Record<string, unknown>;
  /** The fields changed since the form opened, for `PATCH /keys/{id}`; an emptied one is null, which clears it. */
  changes(): Record<string, unknown>;
}

/** The key's name, expiry, limits and allowlists, empty for a new key or filled from `key` to edit it. Inputs carry the API's field names. */
export function keyForm(key?: KeyView): KeyForm {
  const editing = key !== undefined;
  const name = field({
    name: "name", label: "Name", value: key?.name, maxLength: NAME_MAX_LENGTH,
    hint: editing ? undefined : "Optional. Defaults to “Default Key”.",
    validate: (v) => (editing && v === "" ? "Name cannot be empty" : null),
  });
  const expires = field({
    name: "expiresAt", label: "Expires", type: "datetime-local", value: localInput(key?.expiresAt ?? null),
    hint: "Your local time. Leave empty for a key that does not expire.",
    validate: (v) => (v === "" || new Date(v).getTime() > Date.now() ? null : "Expires must be in the future"),
  });
  const creditLimit = field({
    name: "creditLimitUsd", label: "Lifetime credit limit (USD)", inputMode: "decimal", value: plainDecimal(key?.creditLimitUsd ?? null),
    hint: "The most this key may ever spend. Empty for no limit.",
    validate: optionalAmount("Lifetime credit limit", { min: 0, max: MAX_LIMIT_USD, aboveMin: true }),
  });
  const usdPerHour = field({
    name: "rateLimitUsdPerHour", label: "Spend limit per hour (USD)", inputMode: "decimal", value: plainDecimal(key?.rateLimitUsdPerHour ?? null),
    hint: "Over any rolling hour. Empty for no limit.",
    validate: optionalAmount("Spend limit per hour", { min: 0, max: MAX_LIMIT_USD, aboveMin: true }),
  });
  const requestsPerHour = field({
    name: "rateLimitRequestsPerHour", label: "Request limit per hour", inputMode: "numeric", value: key?.rateLimitRequestsPerHour?.toString(),
    hint: "Over any rolling hour. Empty for no limit.",
    validate: optionalWholeNumber("Request limit per hour", 1, MAX_REQUESTS_PER_HOUR),
  });
  const models = field({
    name: "allowedModels", label: "Allowed models", value: key?.allowedModels?.join(", "),
    hint: "Model IDs from the Models page, separated by commas. Empty: every model.",
  });
  const ips = field({
    name: "allowedIps", label: "Allowed IP addresses", value: key?.allowedIps?.join(", "),
    hint: "Addresses or ranges such as 203.0.113.0/24 or 2001:db8::/32, separated by commas. Empty: any address.",
  });
  const fields = [name, expires, creditLimit, usdPerHour, requestsPerHour, models, ips];

  // Each field's value as the API takes it; null for an empty field.
  const wireValue = (f: Field): unknown => {
    const v = f.value();
    if (v === "") return null;
    if (f === name) return v;
    if (f === expires) return new Date(v).toISOString();
    if (f === models || f === ips) return listOf(v);
    return Number(v);
  };
  const initial = new Map(fields.map((f) => [f, f.input.value.trim()]));

  return {
    fields,
    newKey: () => Object.fromEntries(fields.filter((f) => f.value() !== "").map((f) => [f.spec.name, wireValue(f)])),
    changes: () => Object.fromEntries(fields.filter((f) => f.value() !== initial.get(f)).map((f) => [f.spec.name, wireValue(f)])),
  };
}
