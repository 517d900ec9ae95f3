// What the JSON endpoints answer, typed from the server's own view functions (types only:
// nothing of the server's code reaches the browser).
import type { sessionList } from "../../../core/account-sessions.ts";
import type { accountView } from "../../../core/accounts.ts";
import type { auditPage } from "../../../core/audit.ts";
import type { spendSummary, usagePage } from "../../../core/dashboard.ts";
import type { keyCreatedView, keyListView } from "../../../core/key-rules.ts";

export type AccountView = ReturnType<typeof accountView>;
export type SpendSummary = Awaited<ReturnType<typeof spendSummary>>;
export type DaySpendView = SpendSummary["daily"][number];
export type UsagePage = Awaited<ReturnType<typeof usagePage>>;
export type UsageEntryView = UsagePage["usage"][number];
export type KeyView = ReturnType<typeof keyListView>;
export type KeyCreated = ReturnType<typeof keyCreatedView>;
export interface KeyList {
  keys: KeyView[];
}
export interface KeyRotated {
  key: string;
  message: string;
}
export interface CheckoutStarted {
  url: string;
  sessionId: string;
}
export interface SecurityView {
  emailVerified: boolean;
  totpEnabled: boolean;
  recoveryCodesLeft: number;
}
export type SessionList = Awaited<ReturnType<typeof sessionList>>;
export type SessionView = SessionList["sessions"][number];
export type AuditPageView = Awaited<ReturnType<typeof auditPage>>;
export interface TotpSetup {
  secret: string;
  uri: string;
}
export interface TotpEnabled {
  success: true;
  recoveryCodes: string[];
}
