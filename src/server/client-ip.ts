import type { Client } from "../core/accounts/store.ts";
import { parseIpAddress } from "../core/ip-address.ts";

export type PeerSource = { requestIP(request: Request): { address: string } | null } | null | undefined;

/**
 * The client's IP address: the socket's peer, or, when the operator says a trusted reverse
 * proxy is in front (TRUST_PROXY), the right-most address of X-Forwarded-For: the one that
 * proxy appended. Addresses to its left were written by the client and could be forged to
 * escape per-IP limits. Read by the parser the key allowlists and webhooks use, in its
 * canonical form (an IPv4-mapped peer as the IPv4 address), so that one client is one string
 * to every per-IP limit and is judged as the allowlists would read it.
 */
export function clientIp(request: Request, server: PeerSource, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = parseIpAddress(request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() ?? "");
    // An entry the parser refuses (`0xcb.0.113.5`, `203.000.113.005`, a name, a port) is not
    // believed: other parsers read such text as some address, so it could pass an allowlist or
    // spread one client over many per-IP limits. The peer (the proxy) is used instead, and the
    // requests that send such text share the proxy's limits.
    if (forwarded) return forwarded.toString();
  }
  const peer = server?.requestIP(request)?.address;
  if (peer === undefined) return "unknown";
  return parseIpAddress(peer)?.toString() ?? peer;
}

const USER_AGENT_MAX_LENGTH = 300;

/**
 * Who sent the request, as the session list and the audit log show it: the IP and the
 * User-Agent, cut to a sane length and stripped of control characters (it is the client's text).
 */
export function clientOf(request: Request, server: PeerSource, trustProxy: boolean): Client {
  const agent = request.headers.get("user-agent")?.replace(/\p{Cc}/gu, "").slice(0, USER_AGENT_MAX_LENGTH).trim();
  return { ip: clientIp(request, server, trustProxy), userAgent: agent ? agent : null };
}
