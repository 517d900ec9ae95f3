import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { AppError, MESSAGES } from "../../../core/errors.ts";
import { ORG_NOT_FOUND } from "../../../core/orgs/roles.ts";
import { formatUsd } from "../../../core/money.ts";
import {
  acceptInvitation, changeMember, createOrg, deleteOrg, invite, managerOf, removeMember, resendInvitation, visibleMembers,
  revokeInvitation, transfer, type OrgContext,
} from "../../../core/orgs/actions.ts";
import {
  invitationView, memberView, membershipView, orgView, parseInvitation, parseMemberChange, parseOrgName, parseTransfer,
} from "../../../core/orgs/requests.ts";
import { keyListView } from "../../../core/keys/rules.ts";
import type { AppDeps } from "../../deps.ts";
import { clientIp } from "../../client-ip.ts";
import { json, methodGuards } from "../../http.ts";
import { readObjectBody } from "../../object-body.ts";
import { sessionPlugin, type Session } from "../../session.ts";

type Ctx = { session: Session; request: Request; server: Parameters<typeof clientIp>[1] };

/**
 * Organizations, their members, invitations and transfers: a signed-in person's (a management
 * key acts on an organization's account endpoints, never on who belongs to it).
 */
export const orgRoutes = (deps: AppDeps) => {
  const { config, store, now, wakeMailer } = deps;
  const ctxOf = ({ session, request, server }: Ctx): OrgContext => ({
    store, person: signedInAccount(session, MESSAGES.accountNotFound), ip: clientIp(request, server, config.trustProxy),
    dashboardUrl: config.dashboardUrl, now: now(),
  });
  const body = (request: Request) => readObjectBody(request);
  return new Elysia({ name: "orgs" })
    .use(methodGuards({
      "/orgs": "GET, POST", "/orgs/:orgId": "PATCH, DELETE", "/orgs/:orgId/members": "GET", "/orgs/:orgId/members/:userId": "PATCH, DELETE",
      "/orgs/:orgId/invitations": "GET, POST", "/orgs/:orgId/invitations/:invitationId": "DELETE",
      "/orgs/:orgId/invitations/:invitationId/resend": "POST", "/orgs/:orgId/transfers": "POST", "/invitations/accept": "POST",
    }))
    .use(sessionPlugin(deps))
    .post("/orgs", async (c) => {
      const org = await createOrg(ctxOf(c), parseOrgName(await body(c.request)));
      return json(orgView(org, "owner"), 201);
    }, { parse: "none" })
    .get("/orgs", async (c) => {
      const ctx = ctxOf(c);
      return json({ organizations: (await store.listMemberships(ctx.person.id)).map(membershipView) });
    })
    .patch("/orgs/:orgId", async (c) => {
      const ctx = ctxOf(c);
      const { role } = await managerOf(ctx, c.params.orgId);
      const renamed = await store.renameOrg(c.params.orgId, parseOrgName(await body(c.request)), { userId: ctx.person.id, label: ctx.person.email, ip: ctx.ip }, ctx.now);
      if (!renamed) throw new AppError("not_found", ORG_NOT_FOUND);
      return json(orgView(renamed, role));
    }, { parse: "none" })
    .delete("/orgs/:orgId", async (c) => {
      await deleteOrg(ctxOf(c), c.params.orgId);
      return json({ success: true });
    }, { parse: "none" })
    .get("/orgs/:orgId/members", async (c) => {
      const ctx = ctxOf(c);
      return json({ members: (await visibleMembers(ctx, c.params.orgId)).map(memberView) });
    })
    .patch("/orgs/:orgId/members/:userId", async (c) => {
      const change = parseMemberChange(await body(c.request));
      return json(memberView(await changeMember(ctxOf(c), c.params.orgId, c.params.userId, change)));
    }, { parse: "none" })
    .delete("/orgs/:orgId/members/:userId", async (c) => {
      const ctx = ctxOf(c);
      const revoked = await removeMember(ctx, c.params.orgId, c.params.userId);
      return json({ success: true, revokedKeys: revoked.map((key) => keyListView(key, ctx.now)) });
    }, { parse: "none" })
    .post("/orgs/:orgId/invitations", async (c) => {
      const invitation = await invite(ctxOf(c), c.params.orgId, parseInvitation(await body(c.request)));
      wakeMailer?.();
      return json(invitationView(invitation), 201);
    }, { parse: "none" })
    .get("/orgs/:orgId/invitations", async (c) => {
      const ctx = ctxOf(c);
      await managerOf(ctx, c.params.orgId);
      return json({ invitations: (await store.listInvitations(c.params.orgId, ctx.now)).map(invitationView) });
    })
    .post("/orgs/:orgId/invitations/:invitationId/resend", async (c) => {
      const invitation = await resendInvitation(ctxOf(c), c.params.orgId, c.params.invitationId);
      wakeMailer?.();
      return json(invitationView(invitation));
    }, { parse: "none" })
    .delete("/orgs/:orgId/invitations/:invitationId", async (c) => {
      await revokeInvitation(ctxOf(c), c.params.orgId, c.params.invitationId);
      return json({ success: true });
    }, { parse: "none" })
    .post("/invitations/accept", async (c) => {
      const membership = await acceptInvitation(ctxOf(c), await body(c.request));
      return json(membershipView(membership));
    }, { parse: "none" })
    .post("/orgs/:orgId/transfers", async (c) => {
      const input = parseTransfer(await body(c.request));
      const moved = await transfer(ctxOf(c), c.params.orgId, input);
      return json({
        success: true, usd: formatUsd(input.amount, 6), replayed: moved.replayed,
        personalBalanceUsd: formatUsd(moved.personalBalance, 6), orgBalanceUsd: formatUsd(moved.orgBalance, 6),
      });
    }, { parse: "none" });
};
