// Where a webhook may be delivered: a public address only. A receiver URL is the account's
// text, and the gateway fetches it from inside the operator's network, so an address on that
// network (loopback, private, link-local, the cloud's metadata service) would let an account
// reach what the internet cannot. The rule is applied to every address a name resolves to, each
// time it is resolved (DNS rebinding answers a public address first and a private one later).
import ipaddr from "ipaddr.js";

/**
 * Why the gateway will not deliver to `address`, or null when it may. Only global unicast
 * passes: ipaddr.js names every special range (private, loopback, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved, …), and 169.254.169.254 and fd00:ec2::254, the
 * metadata services, fall in link-local and unique-local. An IPv4-mapped IPv6 address is judged
 * as the IPv4 address it is; an address that cannot be read is refused.
 */
export function refusedAddress(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range();
  return range === "unicast" ? null : `${parsed.toString()} is in the ${range.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()} range`;
}

/** Whether `host` (a URL's hostname) is an IP literal rather than a name to resolve. */
export const isIpLiteral = (host: string): boolean => ipaddr.isValid(host.replace(/^\[|\]$/g, ""));
