import type { WebhookEventType } from "./events.ts";

/** An account's webhook endpoint. */
export interface WebhookEndpoint {
  url: string;
  secret: string;
  createdAt: number;
}

/**
 * One event's delivery as the dashboard lists it: the receiver's last answer and when it went or
 * goes next. A redelivery is a delivery of its own, of the same event (same id, same body).
 */
export interface WebhookDelivery {
  /** The event's id, the one its body carries. */
  id: string;
  type: WebhookEventType;
  createdAt: number;
  attempts: number;
  sentAt: number | null;
  nextAttemptAt: number | null;
  answer: string | null;
  /** The exact body that was or will be sent, signed. */
  payload: string;
  /** Whether it was queued by a redelivery rather than by what caused the event. */
  redelivery: boolean;
}

export interface WebhookStore {
  webhookEndpoint(accountId: string): Promise<WebhookEndpoint | null>;
  /** Sets (or replaces, with its new secret) the account's one endpoint. */
  setWebhookEndpoint(accountId: string, endpoint: WebhookEndpoint): Promise<void>;
  removeWebhookEndpoint(accountId: string): Promise<void>;
  /** The account's latest events, newest first. */
  recentWebhookDeliveries(accountId: string, limit: number): Promise<WebhookDelivery[]>;
  /** Queues an event due at once, if the account has an endpoint: its id, or null when it has none. */
  queueWebhookEvent(accountId: string, type: WebhookEventType, data: Record<string, unknown>, now: number): Promise<string | null>;
  /**
   * Queues the account's event `eventId` again, due at once, as a delivery of its own with the
   * same body: the delivery, or null when the account has no such event or no endpoint.
   */
  redeliverWebhookEvent(accountId: string, eventId: string, now: number): Promise<WebhookDelivery | null>;
}
