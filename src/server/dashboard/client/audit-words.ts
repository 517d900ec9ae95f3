import type { AuditEventType } from "../../../core/accounts/audit.ts";
import { h } from "./dom.ts";
import { moneyInText } from "./format.ts";

// How the audit log and the sessions list say things to people, on the customer's pages and the
// operator's console alike.

const EVENT_NAMES: Record<AuditEventType, string> = {
  signup: "Account created", email_verified: "E-mail confirmed", login: "Signed in", login_failed: "Failed sign-in",
  password_changed: "Password changed", password_reset: "Password reset", session_ended: "Signed out",
  totp_enabled: "2FA enabled", totp_disabled: "2FA disabled", key_created: "API key created",
  key_rotated: "API key rotated", key_revoked: "API key revoked", key_updated: "API key changed", credits_granted: "Credits granted",
  banned: "Account suspended", unbanned: "Suspension lifted",
  account_created: "Account created by the operator", account_deleted: "Account deleted", promoted: "Made an operator",
  demoted: "Operator role removed", model_updated: "Model changed",
  org_created: "Organization created", org_renamed: "Organization renamed", org_deleted: "Organization deleted",
  invitation_sent: "Invitation sent", invitation_revoked: "Invitation revoked", member_joined: "Member joined",
  member_changed: "Member changed", member_removed: "Member removed", credits_transferred: "Credits transferred",
  purchase_refunded: "Purchase refunded",
  auto_topup_set: "Automatic top-up set",
  auto_topup_off: "Automatic top-up turned off",
  auto_topup_started: "Automatic top-up charged",
  auto_topup_paid: "Automatic top-up credited",
};

/** An audit event's type in words: "totp_enabled" → "2FA enabled". */
export const eventName = (type: string): string => {
  const known = (EVENT_NAMES as Record<string, string>)[type];
  if (known) return known;
  const words = type.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

// Checked in order: Edge and Opera say "Chrome" too, Chrome says "Safari", Android says "Linux".
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"], [/\bOPR\//, "Opera"], [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\b(Headless)?Chrome\/|\bCriOS\//, "Chrome"], [/\bVersion\/[\d.]+.*Safari\//, "Safari"], [/^curl\//, "curl"],
];
const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, "Android"], [/\b(iPhone|iPad|iPod)\b/, "iOS"], [/\bWindows\b/, "Windows"], [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bCrOS\b/, "ChromeOS"], [/\bLinux\b/, "Linux"],
];

/** A readable name for a browser from its User-Agent: "Chrome on Linux", "Safari on iOS". */
export function device(userAgent: string | null): string {
  if (userAgent === null || userAgent.trim() === "") return "Unknown device";
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? "A browser";
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  return system ? `${browser} on ${system}` : browser;
}

/** An event's detail for people: a sign-in's User-Agent as its browser (the raw text on hover), amounts as money. */
export const eventDetail = (type: string, detail: string | null): string | HTMLElement =>
  type === "login" && detail ? h("span", { title: detail }, device(detail)) : moneyInText(detail ?? "");
