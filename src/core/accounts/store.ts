import type { Nanos } from "../money.ts";
import type { Account } from "../entities.ts";

// The ports of e-mail verification, password recovery, the session list and two-factor sign-in.
// Each method is one transaction; those that change security record their audit event in it.

export interface FreeCreditOffer {
  amount: Nanos;
  /** The normalized e-mail, which may claim the credits once (the claim's `email` and the grant's idempotency key). */
  identity: string;
  /** Its look-alikes' and `+tags`' shared key (email-skeleton.ts `freeCreditSkeleton`), which may claim them once too. */
  emailSkeleton: string;
  /** Sign-ups that received credits are counted per IP under this scope, per UTC day. */
  ipScope: string;
  perIpPerDay: number;
  /** Start of the current UTC day, epoch ms. */
  dayStart: number;
}

/** An e-mail for the outbox; the recipient is the account's address, read in the transaction. */
export interface QueuedMail {
  subject: string;
  text: string;
}

/** A link token: only its SHA-256 is stored, with when it stops working. */
export interface NewLinkToken {
  tokenHash: string;
  expiresAt: number;
  mail: QueuedMail;
}

/** Who did it, for the audit log and the session list. */
export interface Client {
  ip: string;
  userAgent: string | null;
}

export interface NewSignUp {
  email: string;
  /** One account per key: a sign-up whose key an account holds is refused as a taken e-mail (email-skeleton.ts). */
  emailSkeleton: string;
  passwordHash: string;
  client: Client;
  verification: NewLinkToken;
  now: number;
}

export interface SessionRecord {
  tokenHash: string;
  createdAt: number;
  lastSeenAt: number | null;
  expiresAt: number;
  ip: string | null;
  userAgent: string | null;
}

export interface TotpState {
  secret: string | null;
  pendingSecret: string | null;
  lastStep: number | null;
}

export interface AccountSecurityStore {
  /**
   * Creates an unverified account, its verification link and e-mail, and its `signup` audit
   * event; null when the e-mail, or its look-alike key, is taken.
   */
  signUp(input: NewSignUp): Promise<Account | null>;
  /** Queues another verification link; false (nothing queued) when the e-mail is already verified. */
  queueVerification(accountId: string, link: NewLinkToken, now: number): Promise<boolean>;
  /**
   * Uses a verification link once: marks the e-mail verified, grants the free credits when
   * `offer` makes one for the account and it is still available, and audits both. Null when
   * the link is unknown, used or expired.
   */
  verifyEmail(input: {
    tokenHash: string;
    offer: (account: Account) => FreeCreditOffer | null;
    ip: string;
    now: number;
  }): Promise<{ account: Account; freeCreditsGranted: boolean } | null>;
  /**
   * The operator's verification (CLI): as `verifyEmail`, for the account itself, audited as done
   * `by` the operator (`by cli (OS user NAME)`); null when there is no such account.
   */
  verifyAccount(
    accountId: string,
    input: { offer: (account: Account) => FreeCreditOffer | null; now: number; by: string },
  ): Promise<{ account: Account; freeCreditsGranted: boolean } | null>;
  /**
   * Queues a reset link for the live account with this e-mail, unless it was sent
   * `perHour` links in the last hour; false when nothing was queued (callers must not tell).
   */
  queuePasswordReset(input: { email: string; link: NewLinkToken; perHour: number; now: number }): Promise<boolean>;
  /** Uses a reset link once: sets the password, ends every session and audits; null when the link is not valid. */
  resetPassword(input: { tokenHash: string; passwordHash: string; ip: string; now: number }): Promise<{ accountId: string } | null>;
  /** Replaces the hash of the password just checked by one of today's cost (password-hash.ts); nothing else changes. */
  rehashPassword(accountId: string, passwordHash: string): Promise<void>;
  /** Sets the password, ends every session but `keep`, and audits. */
  changePassword(input: { accountId: string; passwordHash: string; keep: string; ip: string; now: number }): Promise<void>;
  /** The account's unexpired sessions, newest first. */
  listSessions(accountId: string, now: number): Promise<SessionRecord[]>;
  /** Ends the account's sessions in `tokenHashes` and audits each; returns how many ended. */
  endSessions(input: { accountId: string; tokenHashes: string[]; ip: string; detail: string; now: number }): Promise<number>;
  /** Moves a session's last use and expiry (sliding sessions). */
  touchSession(tokenHash: string, lastSeenAt: number, expiresAt: number): Promise<void>;
  totpState(accountId: string): Promise<TotpState>;
  setPendingTotp(accountId: string, secret: string): Promise<void>;
  /**
   * Turns two-factor sign-in on with the pending `secret` (still pending, so a second set-up
   * meanwhile wins), stores the recovery codes' hashes, and audits; false when it changed.
   */
  enableTotp(input: { accountId: string; secret: string; step: number; codeHashes: string[]; ip: string; now: number }): Promise<boolean>;
  /** Turns two-factor sign-in off, drops its recovery codes, and audits. */
  disableTotp(input: { accountId: string; ip: string; now: number }): Promise<void>;
  /** Accepts a TOTP time step once: false when it, or a later one, was used before (a replayed code). */
  acceptTotpStep(accountId: string, step: number): Promise<boolean>;
  /** Uses an unused recovery code once; false when there is none with this hash. */
  useRecoveryCode(accountId: string, codeHash: string, now: number): Promise<boolean>;
  recoveryCodesLeft(accountId: string): Promise<number>;
}
