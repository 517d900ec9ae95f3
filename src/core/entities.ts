// The records that many ports share: an account and an API key as the store reads them, and
// what a request's usage-log row says of its usage.
import type { Nanos } from "./money.ts";

export interface Account {
  id: string;
  email: string;
  createdAt: number;
  /** Sum of the account's ledger entries. */
  balance: Nanos;
  /** Sum of open reservations; available = balance − reserved. */
  reserved: Nanos;
  /** Chat requests holding a reservation now. */
  inflight: number;
  /** Low-balance alert threshold; null when alerts are off. */
  alertThreshold: Nanos | null;
  /** Hourly spend safety limit; null when unlimited (the API's -1). */
  spendLimit: Nanos | null;
  bannedAt: number | null;
  deletedAt: number | null;
  /** Null until the owner follows the verification link. */
  emailVerifiedAt: number | null;
  /** Null unless two-factor sign-in is on. */
  totpEnabledAt: number | null;
  /** Where the account signed up (null for CLI-made accounts); the free credits' per-IP bound counts it. */
  signupIp: string | null;
  /** An operator: may use the console (`/dashboard/admin`, `/admin/...`). */
  isAdmin: boolean;
  /** A person's own account, or an organization's (spent through its members' keys and its own). */
  kind: AccountKind;
}

export type AccountKind = "person" | "organization";

export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  creditLimit: Nanos | null;
  usdPerHour: Nanos | null;
  requestsPerHour: number | null;
  totalRequests: number;
  totalSpend: Nanos;
  /** `api` keys call /v1; `management` keys (gw-mgmt-…) call the account endpoints instead. */
  kind: KeyKind;
  /** Catalog IDs this key may use; null: every model. */
  allowedModels: string[] | null;
  /** Addresses and CIDR ranges this key may be used from; null: any address. */
  allowedIps: string[] | null;
  /** An organization's key made by a member, who owns it; null for personal keys and organization keys. */
  ownerId: string | null;
}

export type KeyKind = "api" | "management";

/** What one request used and cost, as its usage-log row keeps it. */
export interface RequestUsage {
  model: string;
  requestedModel: string;
  promptTokens: number;
  completionTokens: number;
  cost: Nanos;
  latencyMs: number;
}

/** What a request's prompt caching did for the customer. */
export interface CacheSavings {
  /** Prompt tokens read from the provider's cache (part of the prompt tokens). */
  cachedTokens: number;
  /** What caching saved: the cost at the uncached input price less the charge. */
  saved: Nanos;
}
