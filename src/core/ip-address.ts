// The one reading of an IP address written by someone else: a key's allowlist, the client's
// address a trusted proxy forwards, a webhook's host. Parsers disagree on the odd forms
// (`0x7f.0.0.1`, `0177.0.0.1`, `127.1` are loopback to inet_aton and to ipaddr.js, text to
// others), and a check that reads an address one way while the network reads it another is a
// way around the check. So only the forms every reader agrees on are addresses here.
import ipaddr from "ipaddr.js";

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

// 0 to 255 in decimal without a leading zero: `010` is 8 to some parsers and 10 to others.
const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const IPV6_CHARS = /^[0-9a-f:]+$/i;

/**
 * The address `text` writes, as written (an IPv4-mapped IPv6 address stays IPv6); null unless it
 * is four-part dotted decimal IPv4 without leading zeros, or IPv6 (a dotted IPv4 tail held to
 * the same rule) without a zone.
 */
export function parseIpLiteral(text: string): IpAddress | null {
  if (IPV4.test(text)) return ipaddr.IPv4.parse(text);
  const dotted = text.lastIndexOf(":") + 1;
  let hex = text;
  if (text.includes(".", dotted)) {
    // ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d` and takes `0x7f` in the tail: the tail is read here.
    const tail = text.slice(dotted);
    if (dotted === 0 || !IPV4.test(tail)) return null;
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number];
    hex = `${text.slice(0, dotted)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  if (!IPV6_CHARS.test(hex) || !ipaddr.IPv6.isValid(hex)) return null;
  return ipaddr.IPv6.parse(hex);
}

/**
 * The IPv4 address an IPv6 one stands for on this host: IPv4-mapped (`::ffff:a.b.c.d`, how a
 * dual-stack socket shows an IPv4 peer) or IPv4-compatible (`::a.b.c.d`, deprecated but still
 * routed as the IPv4 address by some stacks). `::` and `::1` are IPv6's own and stand for none.
 */
export function ipv4Of(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const highZero = parts.slice(0, 5).every((part) => part === 0);
  const mapped = highZero && parts[5] === 0xffff;
  const compatible = highZero && parts[5] === 0 && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
  return mapped || compatible ? ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4 : null;
}

/** `text` read strictly (`parseIpLiteral`), an IPv6 address standing for an IPv4 one read as that one; null when not an address. */
export function parseIpAddress(text: string): IpAddress | null {
  const address = parseIpLiteral(text);
  if (address === null || address.kind() === "ipv4") return address;
  return ipv4Of(address as ipaddr.IPv6) ?? address;
}
