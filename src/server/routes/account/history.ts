import { Elysia } from "elysia";
import { parseStatsDays } from "../../../core/admin/stats.ts";
import { auditPage, parseAuditPage } from "../../../core/accounts/audit.ts";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { parseUsagePage, spendSummary, usagePage } from "../../../core/usage/history.ts";
import { MESSAGES } from "../../../core/errors.ts";
import { modelSpend } from "../../../core/usage/model-spend.ts";
import { purchaseList } from "../../../core/checkout/purchases.ts";
import { ownUsage, parseUsageFilter } from "../../../core/usage/filter.ts";
import { assertManager } from "../../../core/orgs/roles.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { accountCallerPlugin } from "../../session.ts";
import { assertPerson, type AccountCaller } from "../../../core/keys/management.ts";


const READS = ["/account/usage", "/account/spend", "/account/spend/models", "/account/purchases", "/account/audit"];

/**
 * The dashboard's reads beyond the spec's endpoints: the usage table and its filters, spend over
 * time (in all and per model), the purchases and the audit log. Same session rules as `GET /account`;
 * in an organization (`?org=`) a member reads its own usage only, and the rest is for owners and admins.
 */
export const dashboardApiRoutes = (deps: AppDeps) => {
  const { store, now } = deps;
  const account = (session: AccountCaller) => signedInAccount(session, MESSAGES.accountNotFound);
  const app = new Elysia({ name: "dashboard-api" });
  for (const path of READS) app.all(path, methodNotAllowed(plainError, "GET"));
  return app
    .use(accountCallerPlugin(deps))
    .get("/account/usage", async ({ session, query }) => {
      const { id } = account(session);
      return json(await usagePage(store, id, parseUsagePage(query.page), ownUsage(session, parseUsageFilter(query))));
    })
    .get("/account/spend", async ({ session }) => {
      assertManager(session.org);
      return json(await spendSummary(store, account(session).id, now()));
    })
    .get("/account/spend/models", async ({ session, query }) => {
      assertManager(session.org);
      const { id } = account(session);
      return json(await modelSpend(store, id, parseStatsDays(query.days), now()));
    })
    .get("/account/purchases", async ({ session }) => {
      assertManager(session.org);
      return json(await purchaseList(store, account(session).id, now()));
    })
    // The account's own security events, newest first: `{page, hasMore, events}`.
    .get("/account/audit", async ({ session, query }) => {
      assertPerson(session);
      assertManager(session.org);
      const { id } = account(session);
      return json(await auditPage(store, id, parseAuditPage(query.page)));
    });
};
