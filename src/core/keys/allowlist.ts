// What a key may be used for: its allowed models and the addresses it may be used from. Both
// are checked before anything is reserved or forwarded, on every /v1 door alike.
import ipaddr from "ipaddr.js";
import { AppError } from "../errors.ts";
import type { ApiKey } from "../entities.ts";
import { ipv4Of, parseIpAddress, parseIpLiteral, type IpAddress as Address } from "../ip-address.ts";

// Enough for a team's models and an office's networks; a longer list is a mistake, and each
// request walks it.
const MAX_ENTRIES = 100;
const MODEL_ID_MAX_LENGTH = 200;

type Rule<T> = { value: T } | { reason: string };

/** `allowedModels`: catalog IDs, each once; an empty list is no restriction (stored as none). */
export function parseAllowedModels(value: unknown): Rule<string[]> {
  const list = stringList(value);
  if ("reason" in list) return list;
  for (const id of list.value) {
    if (id === "" || id.length > MODEL_ID_MAX_LENGTH || /[\p{Cc}\s]/u.test(id)) {
      return { reason: "must be a list of model IDs" };
    }
  }
  return { value: [...new Set(list.value)] };
}

/**
 * `allowedIps`: IPv4 and IPv6 addresses and CIDR ranges, kept in their canonical form
 * (`10.0.0.0/8`, `2001:db8::/32`). An IPv4-mapped or -compatible IPv6 address or range is kept
 * as the IPv4 one it stands for, since that is how a client's address is compared.
 */
export function parseAllowedIps(value: unknown): Rule<string[]> {
  const list = stringList(value);
  if ("reason" in list) return list;
  const ranges: string[] = [];
  for (const entry of list.value) {
    const range = parseRange(entry.trim());
    if (!range) return { reason: `must be a list of IP addresses or CIDR ranges; \`${entry.slice(0, 64)}\` is neither` };
    ranges.push(`${range[0].toString()}/${range[1]}`);
  }
  return { value: [...new Set(ranges)] };
}

function stringList(value: unknown): Rule<string[]> {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) return { reason: "must be a list of strings" };
  if (value.length > MAX_ENTRIES) return { reason: `must have at most ${MAX_ENTRIES} entries` };
  return { value: value as string[] };
}

/**
 * A CIDR range (an address alone is its own /32 or /128), mapped and compatible IPv6 folded to
 * IPv4; null when malformed. Addresses are read by the one strict parser (`ip-address.ts`) that
 * also reads the client's address: `127.1` and `0x7f.0.0.1` are refused, not read as the
 * loopback address they would be to some parsers.
 */
function parseRange(text: string): [Address, number] | null {
  const [addressText = "", bitsText, ...rest] = text.split("/");
  const address = parseIpLiteral(addressText);
  if (address === null || rest.length > 0 || (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText))) return null;
  const bits = bitsText === undefined ? (address.kind() === "ipv4" ? 32 : 128) : Number(bitsText);
  if (bits > (address.kind() === "ipv4" ? 32 : 128)) return null;
  const ipv4 = address.kind() === "ipv6" && bits >= 96 ? ipv4Of(networkOf(address, bits)[0] as ipaddr.IPv6) : null;
  return ipv4 ? networkOf(ipv4, bits - 96) : networkOf(address, bits);
}

/** The range's network address: `10.1.2.3/8` is kept as `10.0.0.0/8`, the range it matches. */
function networkOf(address: Address, bits: number): [Address, number] {
  const bytes = address.toByteArray().map((byte, i) => {
    const kept = Math.max(0, Math.min(8, bits - i * 8));
    return byte & (0xff << (8 - kept)) & 0xff;
  });
  return [ipaddr.fromByteArray(bytes), bits];
}

/** Whether the client's address falls in one of the ranges. An address that cannot be read matches none. */
export function addressAllowed(clientIp: string, ranges: readonly string[]): boolean {
  const client = parseIpAddress(clientIp);
  if (client === null) return false;
  return ranges.some((entry) => {
    const range = parseRange(entry);
    return range !== null && range[0].kind() === client.kind() && client.match(range as [never, number]);
  });
}

/** Whether admission must check the key's allowlists before it may hold anything for it. */
export const isRestricted = (key: Pick<ApiKey, "allowedModels" | "allowedIps">): boolean =>
  key.allowedModels !== null || key.allowedIps !== null;

/**
 * The 403 a request with this key gets for this model or from this address, or null. The
 * address refusal does not say which ranges are allowed: that would tell a thief where to go.
 */
export function accessRefusal(key: Pick<ApiKey, "allowedModels" | "allowedIps">, model: string | null, clientIp: () => string): AppError | null {
  if (key.allowedIps !== null && !addressAllowed(clientIp(), key.allowedIps)) {
    return new AppError("permission_error", "This API key may not be used from this IP address");
  }
  if (model !== null && key.allowedModels !== null && !key.allowedModels.includes(model)) return modelRefusal(model);
  return null;
}

/** The 403 for a model (or alias) the key's allowlist does not name. */
export const modelRefusal = (model: string) => new AppError("permission_error", `This API key may not use the model \`${model}\``);
