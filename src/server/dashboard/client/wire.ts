// What the JSON endpoints answer, typed from the server's own view functions (types only:
// nothing of the server's code reaches the browser).
import type { sessionList } from "../../../core/accounts/session-list.ts";
import type { accountView } from "../../../core/accounts/state.ts";
import type { auditPage } from "../../../core/accounts/audit.ts";
import type { spendSummary, usagePage } from "../../../core/usage/history.ts";
import type { keyCreatedView, keyListView } from "../../../core/keys/rules.ts";

export type AccountView = ReturnType<typeof accountView>;
export type SpendSummary = Awaited<ReturnType<typeof spendSummary>>;
export type DaySpendView = SpendSummary["daily"][number];
export type UsagePage = Awaited<ReturnType<typeof usagePage>>;
export type UsageEntryView = UsagePage["usage"][number];
/** A key as listed; `rotated` marks one that a rotation replaced. */
export type KeyView = ReturnType<typeof keyListView> & { rotated?: true };
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

// The operator console's reads and the dashboard's newer ones.
import type { accountDetail, adminAuditPage, catalogList, grantCredits, searchAccounts } from "../../../core/admin/actions.ts";
import type { adminAccountView, catalogModelView } from "../../../core/admin/rules.ts";
import type { adminStats } from "../../../core/admin/stats.ts";
import type { modelSpend } from "../../../core/usage/model-spend.ts";
import type { purchaseList } from "../../../core/checkout/purchases.ts";

export type CatalogModel = ReturnType<typeof catalogModelView>;
export type CatalogList = Awaited<ReturnType<typeof catalogList>>;
export type ModelSpend = Awaited<ReturnType<typeof modelSpend>>;
export type PurchaseList = Awaited<ReturnType<typeof purchaseList>>;
export type PurchaseView = PurchaseList["purchases"][number];
export type AdminStats = Awaited<ReturnType<typeof adminStats>>;
export type AdminAccount = ReturnType<typeof adminAccountView>;
export type AccountSearch = Awaited<ReturnType<typeof searchAccounts>>;
export type AccountDetail = Awaited<ReturnType<typeof accountDetail>>;
export type GrantResult = Awaited<ReturnType<typeof grantCredits>>;
export type AdminAuditPage = Awaited<ReturnType<typeof adminAuditPage>>;

// Organizations: members, invitations, memberships.
import type { invitationView, memberView, membershipView } from "../../../core/orgs/requests.ts";

export type MemberView = ReturnType<typeof memberView>;
export type InvitationView = ReturnType<typeof invitationView>;
export type MembershipView = ReturnType<typeof membershipView>;
export interface MemberRemoved {
  success: true;
  revokedKeys: KeyView[];
}
