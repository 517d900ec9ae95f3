import { Elysia } from "elysia";
import { UNLIMITED, parseAlertThreshold, parseSpendSafetyLimit } from "../../../core/accounts/settings.ts";
import { usdNumber } from "../../../core/accounts/state.ts";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { AppError, MESSAGES } from "../../../core/errors.ts";
import type { Account, AccountChange } from "../../../core/store.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { accountCallerPlugin } from "../../session.ts";
import { assertManager } from "../../../core/orgs/roles.ts";
import type { AccountCaller } from "../../../core/keys/management.ts";

/** The account's safety settings: the low-balance alert threshold and the hourly spend safety limit. */
export const settingsRoutes = (deps: AppDeps) => {
  const { store } = deps;
  const account = (session: AccountCaller) => signedInAccount(session, MESSAGES.accountNotFound);
  const update = async (accountId: string, change: AccountChange): Promise<Account> => {
    const updated = await store.updateAccount(accountId, change);
    if (!updated) throw new AppError("not_found", MESSAGES.accountNotFound);
    return updated;
  };

  return new Elysia({ name: "settings" })
    .all("/settings/alert-threshold", methodNotAllowed(plainError, "PATCH"))
    .all("/settings/spend-safety-limit", methodNotAllowed(plainError, "PATCH"))
    .use(accountCallerPlugin(deps))
    .patch(
      "/settings/alert-threshold",
      async ({ session, request }) => {
        assertManager(session.org);
        const { id } = account(session);
        const { alertThreshold } = await update(id, { alertThreshold: parseAlertThreshold(await readObjectBody(request)) });
        return json({ success: true, threshold: alertThreshold === null ? null : usdNumber(alertThreshold) });
      },
      { parse: "none" },
    )
    .patch(
      "/settings/spend-safety-limit",
      async ({ session, request }) => {
        assertManager(session.org);
        const { id } = account(session);
        const { spendLimit } = await update(id, { spendLimit: parseSpendSafetyLimit(await readObjectBody(request)) });
        return json({ success: true, limit: spendLimit === null ? UNLIMITED : usdNumber(spendLimit) });
      },
      { parse: "none" },
    );
};
