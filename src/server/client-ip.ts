/**
 * The client's IP address: the socket's peer, or, when the operator says a trusted reverse
 * proxy is in front (TRUST_PROXY), the left-most address of X-Forwarded-For.
 */
export function clientIp(
  request: Request,
  server: { requestIP(request: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}
