// Purchases (through Stripe Checkout, or an automatic top-up's off-session payment), the
// accounts' automatic top-up settings, and the Stripe events already applied.
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { CheckoutStatus, DisputeStatus } from "../../../core/checkout/sessions.ts";
import { bigint, money, NO_NANOS } from "./columns.ts";

export const checkoutSessions = sqliteTable("checkout_sessions", {
  id: text("id").primaryKey(), accountId: text("account_id").notNull(),
  packId: text("pack_id").notNull(), creditsNanos: money("credits_nanos").notNull(),
  status: text("status").notNull().$type<CheckoutStatus>(),
  createdAt: bigint("created_at").notNull(), expiresAt: bigint("expires_at").notNull(), paidAt: bigint("paid_at"),
  // Stripe's receipt for the payment, when Stripe gives one (looked up once the session is paid).
  receiptUrl: text("receipt_url"),
  // The payment (PaymentIntent, cents paid), what was refunded (cents, credits taken back) and its dispute: core/checkout/chargebacks.ts.
  paymentIntentId: text("payment_intent_id"), amountPaidCents: bigint("amount_paid_cents"),
  refundedCents: bigint("refunded_cents").notNull().default(0), refundedNanos: money("refunded_nanos").notNull().default(NO_NANOS),
  disputedCents: bigint("disputed_cents"), disputeStatus: text("dispute_status").$type<DisputeStatus>(),
  // 1 for an automatic top-up (its id the PaymentIntent's `pi_…` once Stripe named it): counted against the monthly maximum.
  autoTopup: bigint("auto_topup").notNull().default(0),
  // Stripe's invoice of the purchase (STRIPE_INVOICES=on) and its hosted page.
  invoiceId: text("invoice_id"), invoiceUrl: text("invoice_url"),
  // Stripe's hosted page of the session, so that a buyer who left it can go back while it is open.
  checkoutUrl: text("checkout_url"),
}, (t) => [index("checkout_sessions_account_idx").on(t.accountId, t.createdAt), index("checkout_sessions_payment_intent_idx").on(t.paymentIntentId)]);

// An account's automatic top-up (core/checkout/auto-topup.ts): the pack bought off-session when a
// charge takes the balance below the threshold, the monthly maximum, the saved card (Stripe's
// customer and payment method) and the attempt in flight, claimed atomically (`pending_since`).
export const autoTopups = sqliteTable("auto_topups", {
  accountId: text("account_id").primaryKey(), packId: text("pack_id").notNull(),
  thresholdNanos: money("threshold_nanos").notNull(), monthlyMaxNanos: money("monthly_max_nanos").notNull(),
  enabled: bigint("enabled").notNull().default(1),
  customerId: text("customer_id"), paymentMethodId: text("payment_method_id"), cardBrand: text("card_brand"), cardLast4: text("card_last4"),
  pendingSince: bigint("pending_since"), updatedAt: bigint("updated_at").notNull(),
});

export const webhookEvents = sqliteTable("webhook_events", { id: text("id").primaryKey(), type: text("type").notNull(), processedAt: bigint("processed_at").notNull() });
