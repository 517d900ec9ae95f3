import { expect, test } from "bun:test";
import { invitationLimits, invitationRefusal } from "../../src/core/orgs/invitation-limits.ts";

const NOW = Date.UTC(2026, 5, 1, 12);

test("an invitation counts against its person and its organization, each per hour and per day", () => {
  expect(invitationLimits("org-1", "user-1").map((l) => [l.scope, l.limit, l.windowMs / 3_600_000])).toEqual([
    ["invitations:person:user-1", 25, 1], ["invitations:person:user-1", 100, 24],
    ["invitations:org:org-1", 25, 1], ["invitations:org:org-1", 100, 24],
  ]);
});

test.each([
  ["person", 3_600_000, 3600, "you have sent 25 in the last hour, the most allowed. Try again in 60 minutes (at 2026-06-01T13:00:00Z)."],
  ["organization", 3_600_000, 61, "this organization has sent 25 in the last hour, the most allowed. Try again in 2 minutes (at 2026-06-01T12:01:01Z)."],
  ["person", 86_400_000, 7 * 3600, "you have sent 100 in the last 24 hours, the most allowed. Try again in 7 hours (at 2026-06-01T19:00:00Z)."],
] as const)("a full %s window of %p ms is a 429 that says when to retry", (per, windowMs, retryAfterSeconds, words) => {
  const limit = windowMs === 3_600_000 ? 25 : 100;
  const refusal = invitationRefusal({ limited: { scope: "s", limit, windowMs, per }, retryAfterSeconds }, NOW);
  expect([refusal.kind, refusal.status, refusal.retryAfterSeconds, refusal.message]).toEqual([
    "rate_limit_error", 429, retryAfterSeconds, `Too many invitations: ${words}`,
  ]);
});
