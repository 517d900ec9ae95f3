import type { Client } from "../core/accounts/store.ts";

export type PeerSource = { requestIP(request: Request): { address: string } | null } | null | undefined;

/**
 * The client's IP address: the socket's peer, or, when the operator says a trusted reverse
 * proxy is in front (TRUST_PROXY), the right-most address of X-Forwarded-For: the one that
 * proxy appended. Addresses to its left were written by the client and could be forged to
 * escape per-IP limits.
 */
export function clientIp(request: Request, server: PeerSource, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "unknown";
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
