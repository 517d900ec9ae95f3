import type { WebhookEventType } from "./events.ts";

/** An account's webhook endpoint. */
export interface WebhookEndpoint {
  url: string;
  secret: string;
  createdAt: number;
}

/** One event's delivery as the dashboard lists it: the receiver's last answer and when it went or goes next. */
export interface WebhookDelivery {
  id: string;
  type: WebhookEventType;
  createdAt: number;
  attempts: number;
  sentAt: number | null;
  nextAttemptAt: number | null;
  answer: string | null;
}

export interface WebhookStore {
  webhookEndpoint(accountId: string): Promise<WebhookEndpoint | null>;
  /** Sets (or replaces, with its new secret) the account's one endpoint. */
  setWebhookEndpoint(accountId: string, endpoint: WebhookEndpoint): Promise<void>;
  removeWebhookEndpoint(accountId: string): Promise<void>;
  /** The account's latest events, newest first. */
  recentWebhookDeliveries(accountId: string, limit: number): Promise<WebhookDelivery[]>;
}
