import { expect, test } from "bun:test";
import { auditPage, AUDIT_PAGE_SIZE } from "../../src/core/accounts/audit.ts";
import { describeEachDialect } from "../support/databases.ts";
import { useStore } from "../support/store.ts";

const NOW = Date.UTC(2026, 5, 1, 12);

describeEachDialect("the audit log store", (dialect) => {
  const opened = useStore(dialect);

  test("records events and reads them back per account, newest first, and for all accounts", async () => {
    const { store } = opened();
    const a = crypto.randomUUID();
    const b = crypto.randomUUID();
    await store.recordAudit({ accountId: a, type: "signup", ip: "203.0.113.1", detail: null, at: NOW });
    await store.recordAudit({ accountId: b, type: "login", ip: "203.0.113.2", detail: "Firefox", at: NOW + 1 });
    await store.recordAudit({ accountId: a, type: "credits_granted", ip: null, detail: "$5.00 by the operator", at: NOW + 2 });
    const mine = await store.auditEvents(a, 0, 10);
    expect(mine.map(({ type, ip, detail, at, accountId }) => ({ type, ip, detail, at, accountId }))).toEqual([
      { type: "credits_granted", ip: null, detail: "$5.00 by the operator", at: NOW + 2, accountId: a },
      { type: "signup", ip: "203.0.113.1", detail: null, at: NOW, accountId: a },
    ]);
    const all = await store.auditEvents(null, 0, 10);
    expect(all.slice(0, 3).map((e) => e.type)).toEqual(["credits_granted", "login", "signup"]);
  });

  test("pages hold 50 events and say whether another page follows; same-millisecond events keep their order", async () => {
    const { store } = opened();
    const accountId = crypto.randomUUID();
    for (let i = 0; i < AUDIT_PAGE_SIZE + 1; i++) {
      await store.recordAudit({ accountId, type: "login", ip: null, detail: `#${i}`, at: NOW });
    }
    const first = await auditPage(store, accountId, 1);
    expect(first.hasMore).toBe(true);
    expect(first.events).toHaveLength(AUDIT_PAGE_SIZE);
    expect(first.events[0]).toEqual({ id: expect.any(String), at: new Date(NOW).toISOString(), type: "login", ip: null, detail: "#50" });
    const second = await auditPage(store, accountId, 2);
    expect(second).toEqual({ page: 2, hasMore: false, events: [expect.objectContaining({ detail: "#0" })] });
  });
});
