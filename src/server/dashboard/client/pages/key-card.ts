import { h, hidden } from "../dom.ts";
import { count, dateTime, money, sharePercent, usd } from "../format.ts";
import type { KeyView } from "../wire.ts";

const STATUS_TEXT: Record<string, string> = { active: "Active", revoked: "Revoked", expired: "Expired" };

const fact = (term: string, value: string | Node) => h("div", {}, h("dt", {}, term), h("dd", {}, value));
const limit = (value: string | null) => (value === null ? "None" : money(value));

export interface KeyActions {
  edit(key: KeyView): Promise<void>;
  rotate(key: KeyView): Promise<void>;
  revoke(key: KeyView): Promise<void>;
}

/**
 * What a key has spent of its lifetime credit limit: the limit, a bar, and the spend said in
 * words. The bar's length is drawn in floating point; every figure read is exact.
 */
function limitUse(spent: string, limit: string): HTMLElement {
  const share = sharePercent(spent, limit);
  return h("div", {},
    money(limit),
    h("meter", { min: 0, max: Number(limit), value: Math.min(Number(spent), Number(limit)), optimum: 0, high: Number(limit) * 0.8, "aria-label": "Share of the lifetime credit limit used" }),
    h("span", { class: "limit-use muted" }, `${usd(spent)} of ${usd(limit)} used (${share})`));
}

/** One key's card: its facts and the actions its status allows. */
export function keyCard(key: KeyView, actions: KeyActions, owner: string | null): HTMLElement {
  const headingId = `key-${key.id}`;
  const spending = key.management
    ? [fact("Kind", "Management key: manages this account's API keys; cannot call models")]
    : [
      fact("Lifetime credit limit", key.creditLimitUsd === null ? "None" : limitUse(key.total_spend_usd, key.creditLimitUsd)),
      fact("Spend limit per hour", limit(key.rateLimitUsdPerHour)),
      fact("Request limit per hour", key.rateLimitRequestsPerHour === null ? "None" : count(key.rateLimitRequestsPerHour)),
      fact("Models", key.allowedModels?.join(", ") ?? "Any"),
      fact("IP addresses", key.allowedIps?.join(", ") ?? "Any"),
      fact("Requests", count(key.total_requests)),
      fact("Spent", money(key.total_spend_usd)),
    ];
  const button = (label: string, action: (k: KeyView) => Promise<void>, tone = "secondary") =>
    h("button", { type: "button", class: `button ${tone}`, onClick: () => void action(key) }, label, hidden(` ${key.name}`));
  return h("article", { class: `card key status-${key.status}`, "aria-labelledby": headingId },
    h("div", { class: "key-head" },
      h("h3", { id: headingId, tabindex: "-1" }, key.name),
      key.rotated
        ? h("span", { class: "badge expired" }, "Rotated")
        : h("span", { class: `badge ${key.status}` }, STATUS_TEXT[key.status] ?? key.status),
      key.management ? h("span", { class: "badge management" }, "Management") : null,
    ),
    h("dl", { class: "facts" },
      fact("Key", h("code", {}, `${key.prefix}…`)),
      owner === null ? null : fact("Owner", owner),
      fact("Created", dateTime(key.createdAt)),
      fact("Last used", key.lastUsedAt === null ? "Never" : dateTime(key.lastUsedAt)),
      fact("Expires", key.expiresAt === null ? "Never" : dateTime(key.expiresAt)),
      ...spending,
    ),
    h("div", { class: "actions" },
      // A revoked key can never be used again: nothing about it is worth editing.
      key.management || key.status === "revoked" ? null : button("Edit", actions.edit),
      // The server refuses to rotate a revoked or expired key, and to revoke a revoked one.
      key.status === "active" ? button("Rotate", actions.rotate) : null,
      key.status !== "revoked" ? button("Revoke", actions.revoke, "danger") : null,
    ),
  );
}

