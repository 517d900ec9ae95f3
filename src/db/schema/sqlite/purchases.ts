// Purchases through Stripe Checkout and the Stripe events already applied.
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
}, (t) => [index("checkout_sessions_account_idx").on(t.accountId, t.createdAt), index("checkout_sessions_payment_intent_idx").on(t.paymentIntentId)]);

export const webhookEvents = sqliteTable("webhook_events", { id: text("id").primaryKey(), type: text("type").notNull(), processedAt: bigint("processed_at").notNull() });
