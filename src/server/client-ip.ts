/**
 * The client's IP address: the socket's peer, or, when the operator says a trusted reverse
 * proxy is in front (TRUST_PROXY), the right-most address of X-Forwarded-For: the one that
 * proxy appended. Addresses to its left were written by the client and could be forged to
 * escape per-IP limits.
 */
export function clientIp(
  request: Request,
  server: { requestIP(request: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}
