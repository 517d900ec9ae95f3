// The one store behind every port core declares, composed: src/db implements it for SQLite and
// Postgres. The ports themselves live beside their features (and the shared ones in store.ts).
import type { AdminAccountStore } from "./admin/actions.ts";
import type { AdminStatsStore } from "./admin/stats.ts";
import type { AlertStore } from "./alerts/low-balance.ts";
import type { BillingStore } from "./billing/store.ts";
import type { AccountSecurityStore } from "./accounts/store.ts";
import type { AuditStore } from "./accounts/audit.ts";
import type { SessionStore } from "./accounts/session.ts";
import type { SignInDeviceStore } from "./accounts/sign-in-devices.ts";
import type { ModelSpendStore } from "./usage/model-spend.ts";
import type { CheckoutEventStore } from "./checkout/events.ts";
import type { ChargebackStore } from "./checkout/chargebacks.ts";
import type { AutoTopupStore } from "./checkout/auto-topup.ts";
import type { TopupEventStore } from "./checkout/topup-events.ts";
import type { CheckoutStore, ReceiptStore } from "./checkout/sessions.ts";
import type { DashboardStore } from "./usage/history.ts";
import type { UsageExportStore } from "./usage/export.ts";
import type { ResponsesStore } from "./responses/stored.ts";
import type { WebhookStore } from "./webhooks/store.ts";
import type { OrgStore } from "./orgs/store.ts";
import type {
  AccountStore, HealthStore, KeyManagementStore, KeyStore, ModelStore, RateLimitStore, UserStore,
} from "./store.ts";

export type Store = ModelStore & HealthStore & AccountStore & KeyStore & RateLimitStore & DashboardStore
  & UserStore & SessionStore & KeyManagementStore & UsageExportStore & BillingStore
  & CheckoutStore & CheckoutEventStore & ChargebackStore & AutoTopupStore & TopupEventStore & AlertStore & AuditStore & AccountSecurityStore & AdminAccountStore & AdminStatsStore
  & ModelSpendStore & ReceiptStore & ResponsesStore & WebhookStore & OrgStore & SignInDeviceStore;
