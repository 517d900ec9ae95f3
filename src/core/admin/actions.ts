import { catalogModelView, adminAccountView, grantView, ADMIN_PAGE_SIZE, type Grant } from "./rules.ts";
import { AUDIT_PAGE_SIZE, type AuditStore, type NewAuditEvent } from "../accounts/audit.ts";
import type { Model } from "../catalog.ts";
import type { CheckoutStore } from "../checkout/sessions.ts";
import { usageLogView, type DashboardStore } from "../usage/history.ts";
import { AppError } from "../errors.ts";
import { adminPurchaseView } from "./purchases.ts";
import { keyListView } from "../keys/rules.ts";
import { formatUsd, type Nanos } from "../money.ts";
import type { Account, AccountChange, AccountStore, Credit, KeyManagementStore, ModelChange, ModelStore, UserStore } from "../store.ts";

// What the console reads about accounts and what its writes do. Every write is audited, naming
// the operator who made it.

export interface AdminAccountStore {
  /** Accounts whose e-mail contains `query` (already lower-case; empty for all), newest first. */
  searchAccounts(query: string, offset: number, limit: number): Promise<Account[]>;
  /** The e-mails of these accounts, by id; ids without an account are left out. */
  emailsOf(accountIds: string[]): Promise<Map<string, string>>;
  // An operator's writes and their audit entries, each in one transaction: no change goes unaudited.
  /**
   * Appends the ledger entry (as `addCredit`) and `audit`. With `keepNonNegative`, a debit that
   * would take the balance below zero writes nothing and answers `refused` with the balance: the
   * check and the entry are one transaction, so no concurrent debit slips between them.
   */
  addCreditAudited(credit: Credit, audit: NewAuditEvent, options?: { keepNonNegative?: boolean }):
    Promise<{ balance: Nanos; refused?: "below_zero" } | null>;
  /** Applies the change (as `updateAccount`) and records `audit`; null, recording nothing, without such an account. */
  updateAccountAudited(id: string, change: AccountChange, audit: NewAuditEvent): Promise<Account | null>;
  /** Applies the change (as `updateModel`) and records what `audit` makes of the result; null, recording nothing, without such a model. */
  updateModelAudited(id: string, change: ModelChange, audit: (model: Model) => NewAuditEvent): Promise<Model | null>;
}

export interface AdminPorts {
  store: AdminAccountStore & AccountStore & UserStore & KeyManagementStore & Pick<CheckoutStore, "listCheckouts">
    & Pick<DashboardStore, "usageLogs"> & ModelStore & AuditStore;
}

/** Who acts, from where and when: what every audit entry of a console write carries. */
export interface OperatorAct {
  operator: Account;
  ip: string | null;
  now: number;
}

const CONTROL = /\p{Cc}/u;

/** Usage logs shown on an account's console page. */
const RECENT_USAGE = 20;

/** `GET /admin/accounts?q=&page=`: one page of matching accounts, and whether another follows. */
export async function searchAccounts(store: AdminAccountStore, query: string, page: number) {
  // One row past the page tells whether another follows, without counting.
  const found = await store.searchAccounts(query, (page - 1) * ADMIN_PAGE_SIZE, ADMIN_PAGE_SIZE + 1);
  return {
    page,
    pageSize: ADMIN_PAGE_SIZE,
    hasMore: found.length > ADMIN_PAGE_SIZE,
    accounts: found.slice(0, ADMIN_PAGE_SIZE).map(adminAccountView),
  };
}

/** The account named in a console path, or 404. */
export async function accountNamed(store: AccountStore, email: string): Promise<Account> {
  // No stored e-mail holds a control character, and Postgres cannot even compare a NUL.
  const account = CONTROL.test(email) ? null : await store.findAccountByEmail(email.trim().toLowerCase());
  if (!account) throw new AppError("not_found", "Account not found");
  return account;
}

/** `GET /admin/accounts/{email}`: the account, its keys, its purchases and its latest usage. */
export async function accountDetail(store: AdminPorts["store"], email: string, now: number) {
  const account = await accountNamed(store, email);
  const [keys, purchases, usage] = await Promise.all([
    store.listKeys(account.id),
    store.listCheckouts(account.id, { paidOnly: false }),
    store.usageLogs(account.id, 0, RECENT_USAGE),
  ]);
  return {
    account: adminAccountView(account),
    keys: keys.map((k) => keyListView(k, now)),
    purchases: purchases.filter((c) => c.id.startsWith("cs_")).map(adminPurchaseView),
    usage: usage.map(usageLogView),
  };
}

export const byOperator = (act: OperatorAct) => `by operator ${act.operator.email}`;

/** `POST /admin/accounts/{email}/credits`: a ledger entry of exactly the amount, audited as `credits_granted`. */
export async function grantCredits(ports: AdminPorts, act: OperatorAct, email: string, grant: Grant) {
  const account = await accountNamed(ports.store, email);
  const result = await ports.store.addCreditAudited(
    { accountId: account.id, amount: grant.amount, kind: grant.kind, note: grant.note, now: act.now },
    {
      accountId: account.id, type: "credits_granted", ip: act.ip, at: act.now,
      detail: `${grant.kind} of ${formatUsd(grant.amount, 9)} USD ${byOperator(act)}: ${grant.note}`,
    },
  );
  // addCredit answers null only for a reused idempotency key, which a grant never carries.
  return { email: account.email, ...grantView(grant, result?.balance ?? account.balance) };
}

/**
 * `POST /admin/accounts/{email}/ban` and `/unban`. Banning keeps an earlier ban's time; an
 * operator cannot ban their own account (they would lock themselves out of the console).
 */
export async function setBanned(ports: AdminPorts, act: OperatorAct, email: string, banned: boolean) {
  const account = await accountNamed(ports.store, email);
  if (banned && account.id === act.operator.id) throw new AppError("invalid_request_error", "You cannot ban your own account");
  const updated = await ports.store.updateAccountAudited(
    account.id,
    { bannedAt: banned ? (account.bannedAt ?? act.now) : null },
    { accountId: account.id, type: banned ? "banned" : "unbanned", ip: act.ip, at: act.now, detail: byOperator(act) },
  );
  if (!updated) throw new AppError("not_found", "Account not found");
  return adminAccountView(updated);
}

/** `GET /admin/models`: the whole catalog, disabled models included, and the aliases. */
export async function catalogList(store: ModelStore) {
  return { models: (await store.listModels({ includeDisabled: true })).map(catalogModelView), aliases: await store.listAliases() };
}

/** A catalog change in words, for its audit event: "disabled, output 9.0000 USD/1M". */
export function describeModelChange(change: ModelChange): string {
  return [
    change.enabled === undefined ? null : change.enabled ? "enabled" : "disabled",
    change.inputPerMTok === undefined ? null : `input ${formatUsd(change.inputPerMTok, 4)} USD/1M`,
    change.outputPerMTok === undefined ? null : `output ${formatUsd(change.outputPerMTok, 4)} USD/1M`,
    change.cachedInputPerMTok === undefined ? null
      : `cached input ${change.cachedInputPerMTok === null ? "at the input price" : `${formatUsd(change.cachedInputPerMTok, 4)} USD/1M`}`,
  ].filter((p) => p !== null).join(", ");
}

/**
 * `PATCH /admin/models/{id}`: enable, disable or reprice. Audited on the operator's own account
 * as `model_updated`, since a catalog change belongs to no customer account.
 */
export async function editModel(ports: AdminPorts, act: OperatorAct, id: string, change: ModelChange) {
  const changed = describeModelChange(change);
  const model = CONTROL.test(id) ? null : await ports.store.updateModelAudited(id, change, (updated) => ({
    accountId: act.operator.id, type: "model_updated", ip: act.ip, at: act.now,
    detail: `${updated.id}: ${changed} ${byOperator(act)}`,
  }));
  if (!model) throw new AppError("not_found", "Model not found");
  return catalogModelView(model);
}

/**
 * `GET /admin/audit?page=N[&email=E]`: the audit log of every account (or of one), newest first,
 * each event with the e-mail of the account it belongs to.
 */
export async function adminAuditPage(store: AdminPorts["store"], page: number, email: string | undefined) {
  const accountId = email === undefined || email.trim() === "" ? null : (await accountNamed(store, email)).id;
  // One row past the page tells whether another follows, as the account's own audit page does.
  const found = await store.auditEvents(accountId, (page - 1) * AUDIT_PAGE_SIZE, AUDIT_PAGE_SIZE + 1);
  const events = found.slice(0, AUDIT_PAGE_SIZE);
  const emails = await store.emailsOf([...new Set(events.map((e) => e.accountId))]);
  return {
    page,
    hasMore: found.length > AUDIT_PAGE_SIZE,
    events: events.map((e) => ({
      id: e.id, at: new Date(e.at).toISOString(), email: emails.get(e.accountId) ?? null, type: e.type, ip: e.ip, detail: e.detail,
    })),
  };
}
