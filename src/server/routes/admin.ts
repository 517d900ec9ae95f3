import { Elysia } from "elysia";
import { parseAccountQuery, parseGrant, parseModelChange, parsePage, requireOperator, ADMIN_PAGES } from "../../core/admin/rules.ts";
import {
  accountDetail, adminAuditPage, catalogList, editModel, grantCredits, searchAccounts, setBanned, type AdminPorts, type OperatorAct,
} from "../../core/admin/actions.ts";
import { adminStats, parseStatsDays } from "../../core/admin/stats.ts";
import { refundAsOperator } from "../../core/admin/purchases.ts";
import { removeAliasAsOperator, saveAliasAsOperator } from "../../core/admin/aliases.ts";
import { stripeClient, stripeRefunds } from "../payments/stripe.ts";
import { parseAuditPage } from "../../core/accounts/audit.ts";
import type { AppDeps } from "../deps.ts";
import { clientIp } from "../client-ip.ts";
import { json, methodNotAllowed, plainError } from "../http.ts";
import { readObjectBody } from "../object-body.ts";
import { sessionPlugin, type Session } from "../session.ts";

type Server = Parameters<typeof clientIp>[1];

/**
 * The operator console's JSON endpoints (`/dashboard/admin` reads them). Session only: 401
 * without a session, 403 for an account that is not an operator; every write is audited, a
 * purchase's refund (`POST /admin/purchases/{id}/refund`) too.
 */
export const adminRoutes = (deps: AppDeps) => {
  const { store, now, config, log } = deps;
  const ports: AdminPorts = { store };
  const stripe = stripeClient(config.stripe);
  const refunds = { store, audit: store, provider: stripe === null ? null : stripeRefunds(stripe, log) };
  const act = (session: Session, request: Request, server: Server): OperatorAct => ({
    operator: requireOperator(session), ip: clientIp(request, server, config.trustProxy), now: now(),
  });

  return new Elysia({ name: "admin" })
    .all("/admin/accounts", methodNotAllowed(plainError, "GET"))
    .all("/admin/accounts/:email", methodNotAllowed(plainError, "GET"))
    .all("/admin/accounts/:email/credits", methodNotAllowed(plainError, "POST"))
    .all("/admin/accounts/:email/ban", methodNotAllowed(plainError, "POST"))
    .all("/admin/accounts/:email/unban", methodNotAllowed(plainError, "POST"))
    .all("/admin/stats", methodNotAllowed(plainError, "GET"))
    .all("/admin/models", methodNotAllowed(plainError, "GET"))
    .all("/admin/models/:id", methodNotAllowed(plainError, "PATCH"))
    .all("/admin/aliases/:name", methodNotAllowed(plainError, "PUT, DELETE"))
    .all("/admin/audit", methodNotAllowed(plainError, "GET"))
    .all("/admin/purchases/:id/refund", methodNotAllowed(plainError, "POST"))
    .use(sessionPlugin(deps))
    .get("/admin/accounts", async ({ session, query }) => {
      requireOperator(session);
      return json(await searchAccounts(store, parseAccountQuery(query.q), parsePage(query.page, ADMIN_PAGES)));
    })
    .get("/admin/accounts/:email", async ({ session, params }) => {
      requireOperator(session);
      return json(await accountDetail(store, params.email, now()));
    })
    .post("/admin/accounts/:email/credits", async ({ session, params, request, server }) => {
      const by = act(session, request, server);
      const grant = parseGrant(await readObjectBody(request));
      return json(await grantCredits(ports, by, params.email, grant));
    })
    .post("/admin/accounts/:email/ban", ({ session, params, request, server }) =>
      setBanned(ports, act(session, request, server), params.email, true).then((view) => json(view)))
    .post("/admin/accounts/:email/unban", ({ session, params, request, server }) =>
      setBanned(ports, act(session, request, server), params.email, false).then((view) => json(view)))
    .get("/admin/stats", async ({ session, query }) => {
      requireOperator(session);
      const days = parseStatsDays(query.days);
      return json(await adminStats(store, await store.listModels({ includeDisabled: true }), days, now()));
    })
    .get("/admin/models", async ({ session }) => {
      requireOperator(session);
      return json(await catalogList(store));
    })
    .get("/admin/audit", async ({ session, query }) => {
      requireOperator(session);
      return json(await adminAuditPage(store, parseAuditPage(query.page), query.email));
    })
    .post("/admin/purchases/:id/refund", async ({ session, params, request, server }) => {
      const { operator, ip, now: at } = act(session, request, server);
      return json(await refundAsOperator(refunds, { by: `operator ${operator.email}`, ip, now: at }, params.id, await readObjectBody(request)));
    })
    .patch("/admin/models/:id", async ({ session, params, request, server }) => {
      const by = act(session, request, server);
      const change = parseModelChange(await readObjectBody(request));
      return json(await editModel(ports, by, params.id, change));
    })
    .put("/admin/aliases/:name", async ({ session, params, request, server }) => {
      const by = act(session, request, server);
      return json(await saveAliasAsOperator(ports, by, params.name, await readObjectBody(request)));
    })
    .delete("/admin/aliases/:name", async ({ session, params, request, server }) =>
      json(await removeAliasAsOperator(ports, act(session, request, server), params.name)));
};
