// Where a webhook may be delivered: a public address only. A receiver URL is the account's
// text, and the gateway fetches it from inside the operator's network, so an address on that
// network (loopback, private, link-local, the cloud's metadata service) would let an account
// reach what the internet cannot. The rule is applied to every address a name resolves to, each
// time it is resolved (DNS rebinding answers a public address first and a private one later).
import ipaddr from "ipaddr.js";
import { parseIpAddress, type IpAddress } from "../ip-address.ts";

const NAT64 = ipaddr.IPv6.parse("64:ff9b::");
const SIX_TO_FOUR = ipaddr.IPv6.parse("2002::");

/**
 * The IPv4 address a translating prefix carries, which is where packets to it end up: NAT64's
 * well-known 64:ff9b::/96 (RFC 6052; a DNS64 resolver answers such addresses for IPv4-only
 * names) and 6to4's 2002:a.b.c.d::/48 (RFC 3056). Mapped and compatible forms are read as IPv4
 * by the parser already.
 */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  if (address.match(NAT64, 96)) return ipaddr.fromByteArray(bytes.slice(12)) as ipaddr.IPv4;
  if (address.match(SIX_TO_FOUR, 16)) return ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4;
  return null;
}

const rangeName = (address: IpAddress): string => address.range().replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

/**
 * Why the gateway will not deliver to `address`, or null when it may. Only global unicast
 * passes: ipaddr.js names every special range (private, loopback, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved, …), and 169.254.169.254 and fd00:ec2::254, the
 * metadata services, fall in link-local and unique-local. An IPv6 address that stands for an
 * IPv4 one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64, 6to4) is judged as that
 * IPv4 address: `::127.0.0.1` is loopback. An address that cannot be read (strictly,
 * `ip-address.ts`) is refused.
 */
export function refusedAddress(address: string): string | null {
  const parsed = parseIpAddress(address);
  if (parsed === null) return `${address} is not an IP address`;
  const carried = parsed.kind() === "ipv6" ? carriedIpv4(parsed as ipaddr.IPv6) : null;
  if (carried) return carried.range() === "unicast" ? null : `${parsed.toString()} (${carried.toString()}) is in the ${rangeName(carried)} range`;
  return parsed.range() === "unicast" ? null : `${parsed.toString()} is in the ${rangeName(parsed)} range`;
}

/** Whether `host` (a URL's hostname) is an IP literal rather than a name to resolve. */
export const isIpLiteral = (host: string): boolean => ipaddr.isValid(host.replace(/^\[|\]$/g, ""));
