// The people of an organization: members (listed, added, their role changed, removed) and
// invitations (sent, listed, revoked). An e-mail that is only invited is told so, not "not found".
import type { Command } from "commander";
import { accountState } from "../../core/accounts/state.ts";
import { parseEmail } from "../../core/accounts/sign-in.ts";
import { invitationView } from "../../core/orgs/requests.ts";
import { sendInvitation, settled } from "../../core/orgs/actions.ts";
import { ROLES } from "../../core/orgs/roles.ts";
import { withStore } from "../context.ts";
import { CliError, exactUsd, exactUsdOrNull, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";
import { asCli, notAMember, operator, requireOrg, requirePerson, roleFlag } from "./orgs-args.ts";
import { keyRecord, memberRecord } from "../records.ts";

const everyone = () => "ok" as const;
const NOT_A_MEMBER = "not a member";

export function registerOrgPeople(orgs: Command, output: () => Output): void {
  orgs.command("members <org>").description("an organization's members, their roles, caps and spend today")
    .action(async (ref: string) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        printRecords(output(), await store.listMembers(org.id, Date.now()), memberRecord, {
          email: (m) => m.email, role: (m) => m.role, "cap USD/day": (m) => exactUsdOrNull(m.spendCapPerDay) ?? "-", "spent today USD": (m) => exactUsd(m.spentToday),
        });
      }),
    );

  orgs.command("add <org>").description("make an existing account with a verified e-mail a member at once (no invitation)")
    .requiredOption("--email <email>", "the account's e-mail").option("--role <role>", `${ROLES.join(", ")}`, "member")
    .action(async (ref: string, opts: { email: string; role: string }) =>
      withStore({}, async ({ store }) => {
        const role = roleFlag(opts.role);
        const org = await requireOrg(store, ref);
        const person = await requireAccount(store, opts.email);
        if (person.emailVerifiedAt === null) throw new CliError(`${person.email} has not verified its e-mail: invite it instead (gateway orgs invite ${org.id} --email ${person.email})`);
        if (accountState(person) !== "active") throw new CliError(`${person.email} is ${accountState(person)}`);
        const outcome = await store.addMember({ orgId: org.id, userId: person.id, email: person.email, role, actor: operator(), now: Date.now() });
        if ("refused" in outcome) {
          throw new CliError(outcome.refused === "member" ? `${person.email} is already a member of "${org.name}"` : `no organization "${ref}"`);
        }
        printResult(output(), memberRecord(outcome.ok), `${person.email} added to "${org.name}" as ${outcome.ok.role}`);
      }),
    );

  orgs.command("set-role <org>").description("change a member's role (an organization always keeps an owner)")
    .requiredOption("--email <email>", "the member").requiredOption("--role <role>", `${ROLES.join(", ")}`)
    .action(async (ref: string, opts: { email: string; role: string }) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const person = await requirePerson(store, org, opts.email);
        const change = { orgId: org.id, actor: operator(), userId: person.id, role: roleFlag(opts.role), decide: everyone, now: Date.now() };
        const outcome = await store.changeMember(change);
        if ("refused" in outcome && outcome.refused === "not_found") throw await notAMember(store, org, person.email);
        const member = await asCli(async () => settled(outcome, NOT_A_MEMBER));
        printResult(output(), memberRecord(member), `${member.email} is now ${member.role} of "${org.name}"`);
      }),
    );

  orgs.command("remove <org>").description("remove a member: its keys are revoked and its requests' reservations released")
    .requiredOption("--email <email>", "the member")
    .action(async (ref: string, opts: { email: string }) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const person = await requirePerson(store, org, opts.email);
        const now = Date.now();
        const outcome = await store.removeMember({ orgId: org.id, actor: operator(), userId: person.id, decide: everyone, now });
        if ("refused" in outcome && outcome.refused === "not_found") throw await notAMember(store, org, person.email);
        const revoked = await asCli(async () => settled(outcome, NOT_A_MEMBER));
        // As DELETE /orgs/{id}/members/{userId} answers it.
        printResult(output(), { success: true, revokedKeys: revoked.map((key) => keyRecord(key, now)) },
          `${person.email} removed from "${org.name}"; ${revoked.length} key(s) revoked`);
      }),
    );

  registerInvitations(orgs, output);
}

function registerInvitations(orgs: Command, output: () => Output): void {
  orgs.command("invite <org>").description("e-mail an invitation (the server's outbox sends it)")
    .requiredOption("--email <email>", "who is invited").option("--role <role>", `${ROLES.join(", ")}`, "member")
    .action(async (ref: string, opts: { email: string; role: string }) =>
      withStore({}, async ({ store, config }) => {
        const org = await requireOrg(store, ref);
        const email = await asCli(async () => parseEmail(opts.email));
        const invitation = await sendInvitation(store, { org, email, role: roleFlag(opts.role), actor: operator(), dashboardUrl: config.dashboardUrl, now: Date.now() });
        printResult(output(), invitationView(invitation),
          `${email} invited to "${org.name}" as ${invitation.role}`);
      }),
    );

  orgs.command("invitations <org>").description("the organization's pending invitations (not accepted, revoked or expired)")
    .action(async (ref: string) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        printRecords(output(), await store.listInvitations(org.id, Date.now()), invitationView, {
          email: (i) => i.email, role: (i) => i.role, "sent": (i) => invitationView(i).createdAt, "expires": (i) => invitationView(i).expiresAt,
        });
      }),
    );

  orgs.command("revoke-invitation <org>").description("revoke the pending invitation of an e-mail: its link stops working")
    .requiredOption("--email <email>", "who was invited")
    .action(async (ref: string, opts: { email: string }) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const email = await asCli(async () => parseEmail(opts.email));
        const now = Date.now();
        const pending = (await store.listInvitations(org.id, now)).find((i) => i.email === email);
        const revoked = pending ? await store.revokeInvitation(org.id, pending.id, operator(), now) : null;
        if (!revoked) throw new CliError(`${email} has no pending invitation to "${org.name}" (see: gateway orgs invitations ${org.id})`);
        printResult(output(), { success: true }, `the invitation of ${email} to "${org.name}" is revoked`);
      }),
    );
}
