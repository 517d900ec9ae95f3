import { Elysia } from "elysia";
import { requireOperator } from "../../core/admin/rules.ts";
import { parseEmail } from "../../core/accounts/sign-in.ts";
import { AppError } from "../../core/errors.ts";
import { MEMBER_NOT_FOUND, settled } from "../../core/orgs/actions.ts";
import { adminOrgView, memberView } from "../../core/orgs/requests.ts";
import { ORG_NOT_FOUND } from "../../core/orgs/roles.ts";
import type { AppDeps } from "../deps.ts";
import { clientIp } from "../client-ip.ts";
import { json, methodGuards } from "../http.ts";
import { readObjectBody } from "../object-body.ts";
import { sessionPlugin } from "../session.ts";

/**
 * The operator console's organizations: the list with members and balances, one
 * organization's members, and appointing one of its members owner (an organization whose
 * owners are gone is not stuck). Session only, operators only, as the rest of /admin.
 */
export const adminOrgRoutes = (deps: AppDeps) => {
  const { store, now, config } = deps;
  const requireOrg = async (id: string) => {
    const org = await store.findOrg(id);
    if (!org) throw new AppError("not_found", ORG_NOT_FOUND);
    return org;
  };
  return new Elysia({ name: "admin-orgs" })
    .use(methodGuards({ "/admin/orgs": "GET", "/admin/orgs/:id": "GET", "/admin/orgs/:id/owners": "POST" }))
    .use(sessionPlugin(deps))
    .get("/admin/orgs", async ({ session }) => {
      requireOperator(session);
      return json({ organizations: (await store.listOrgs()).map(adminOrgView) });
    })
    .get("/admin/orgs/:id", async ({ session, params }) => {
      requireOperator(session);
      const org = await requireOrg(params.id);
      return json({ id: org.id, name: org.name, members: (await store.listMembers(org.id, now())).map(memberView) });
    })
    .post("/admin/orgs/:id/owners", async ({ session, params, request, server }) => {
      const operator = requireOperator(session);
      const org = await requireOrg(params.id);
      const person = await store.findAccountByEmail(parseEmail((await readObjectBody(request)).email));
      if (!person) throw new AppError("not_found", MEMBER_NOT_FOUND);
      const actor = { userId: null, label: `operator ${operator.email}`, ip: clientIp(request, server, config.trustProxy) };
      const change = { orgId: org.id, actor, userId: person.id, role: "owner" as const, decide: () => "ok" as const, now: now() };
      return json(memberView(settled(await store.changeMember(change), MEMBER_NOT_FOUND)));
    }, { parse: "none" });
};
