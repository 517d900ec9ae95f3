import type { Config } from "../config.ts";
import { DEVICE_COOKIE, DEVICE_TTL_MS } from "../core/accounts/sign-in-devices.ts";

// The device cookie (core/accounts/sign-in-devices.ts): sent only to the sign-in endpoints
// (Path), out of reach of page scripts (HttpOnly), never on cross-site subrequests (Lax).

/** The device token in the request's Cookie header, if any. */
export function deviceToken(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === DEVICE_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** `Set-Cookie` for a device that signed in: a year, renewed at each sign-in. */
export function deviceCookie(token: string, config: Pick<Config, "basePath" | "publicUrl">, now: number): string {
  const secure = new URL(config.publicUrl).protocol === "https:" ? "; Secure" : "";
  return `${DEVICE_COOKIE}=${token}; Path=${config.basePath}/auth; HttpOnly; SameSite=Lax${secure}; `
    + `Max-Age=${DEVICE_TTL_MS / 1000}; Expires=${new Date(now + DEVICE_TTL_MS).toUTCString()}`;
}

/** `response` with the device cookie added beside its other cookies. */
export function withDeviceCookie(response: Response, token: string, config: Pick<Config, "basePath" | "publicUrl">, now: number): Response {
  response.headers.append("set-cookie", deviceCookie(token, config, now));
  return response;
}
