import { Elysia } from "elysia";
import { auditPage, parseAuditPage } from "../../core/audit.ts";
import { signedInAccount } from "../../core/auth.ts";
import { parseUsagePage, spendSummary, usagePage } from "../../core/dashboard.ts";
import { MESSAGES } from "../../core/errors.ts";
import type { AppDeps } from "../deps.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import { sessionPlugin, type Session } from "../session.ts";

/** The dashboard's reads beyond the spec's endpoints: the usage table, spend over time and the audit log. Same session rules as `GET /account`. */
export const dashboardApiRoutes = (deps: AppDeps) => {
  const { store, now } = deps;
  const account = (session: Session) => signedInAccount(session, MESSAGES.accountNotFound);
  return new Elysia({ name: "dashboard-api" })
    .all("/account/usage", methodNotAllowed(plainError, "GET"))
    .all("/account/spend", methodNotAllowed(plainError, "GET"))
    .all("/account/audit", methodNotAllowed(plainError, "GET"))
    .use(sessionPlugin(deps))
    .get("/account/usage", async ({ session, query }) => {
      const { id } = account(session);
      return json(await usagePage(store, id, parseUsagePage(query.page)));
    })
    .get("/account/spend", async ({ session }) => json(await spendSummary(store, account(session).id, now())))
    // The account's own security events, newest first: `{page, hasMore, events}`.
    .get("/account/audit", async ({ session, query }) => {
      const { id } = account(session);
      return json(await auditPage(store, id, parseAuditPage(query.page)));
    });
};
