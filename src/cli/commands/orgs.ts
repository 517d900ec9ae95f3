import type { Command } from "commander";
import { memberView, membershipView, parseOrgName } from "../../core/orgs/requests.ts";
import { MEMBER_NOT_FOUND, sendInvitation, settled } from "../../core/orgs/actions.ts";
import { isRole, ROLES, type Role } from "../../core/orgs/roles.ts";
import type { Organization } from "../../core/orgs/store.ts";
import type { Store } from "../../core/ports.ts";
import { formatUsd } from "../../core/money.ts";
import { isAppError } from "../../core/errors.ts";
import { parseEmail } from "../../core/accounts/sign-in.ts";
import { withStore } from "../context.ts";
import { CliError, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";

/** The CLI acts as the operator, who acts on an organization as an owner would. */
const OPERATOR = { userId: null, label: "the operator", ip: null };

/** An organization named by its id, or by its name when exactly one has it. */
async function requireOrg(store: Store, ref: string): Promise<Organization> {
  const byId = await store.findOrg(ref);
  if (byId) return byId;
  const named = (await store.listOrgs()).filter((org) => org.name === ref);
  if (named.length === 1) return named[0] as Organization;
  throw new CliError(named.length > 1 ? `several organizations are named "${ref}": give its id` : `no organization "${ref}" (see: gateway orgs list)`);
}

function roleFlag(raw: string): Role {
  if (!isRole(raw)) throw new CliError(`--role must be one of ${ROLES.join(", ")} (got "${raw}")`);
  return raw;
}

/** Core's refusals (a bad name, the last owner) as the CLI's errors. */
async function asCli<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error)) throw new CliError(error.message);
    throw error;
  }
}

const everyone = () => "ok" as const;

export function registerOrgs(program: Command, output: () => Output): void {
  const orgs = program.command("orgs").description("organizations: one balance, several people");

  orgs.command("create").description("make an organization with its first owner")
    .requiredOption("--email <email>", "the owner's e-mail").requiredOption("--name <name>", "its name")
    .action(async (opts: { email: string; name: string }) =>
      withStore({}, async ({ store }) => {
        const owner = await requireAccount(store, opts.email);
        const name = await asCli(async () => parseOrgName({ name: opts.name }));
        const org = await store.createOrg({ name, owner: owner.id, actor: OPERATOR, now: Date.now() });
        printResult(output(), { id: org.id, name: org.name, owner: owner.email }, `organization ${org.id} ("${org.name}") made, owned by ${owner.email}`);
      }),
    );

  orgs.command("list").description("every organization, or one person's with its role")
    .option("--email <email>", "only this person's organizations")
    .action(async (opts: { email?: string }) =>
      withStore({}, async ({ store }) => {
        if (opts.email) {
          const person = await requireAccount(store, opts.email);
          printRecords(output(), (await store.listMemberships(person.id)).map(membershipView), { id: (m) => m.id, name: (m) => m.name, role: (m) => m.role });
          return;
        }
        const listed = (await store.listOrgs()).map((o) => ({ id: o.id, name: o.name, members: o.members, balanceUsd: formatUsd(o.balance, 6) }));
        printRecords(output(), listed, { id: (o) => o.id, name: (o) => o.name, members: (o) => o.members, "balance USD": (o) => o.balanceUsd });
      }),
    );

  orgs.command("members <org>").description("an organization's members, their roles, caps and spend today")
    .action(async (ref: string) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        printRecords(output(), (await store.listMembers(org.id, Date.now())).map(memberView), {
          email: (m) => m.email, role: (m) => m.role, "cap USD/day": (m) => m.spendCapUsdPerDay ?? "-", "spent today USD": (m) => m.spentTodayUsd,
        });
      }),
    );

  orgs.command("invite <org>").description("e-mail an invitation (the server's outbox sends it)")
    .requiredOption("--email <email>", "who is invited").option("--role <role>", `${ROLES.join(", ")}`, "member")
    .action(async (ref: string, opts: { email: string; role: string }) =>
      withStore({}, async ({ store, config }) => {
        const org = await requireOrg(store, ref);
        const email = await asCli(async () => parseEmail(opts.email));
        const invitation = await sendInvitation(store, { org, email, role: roleFlag(opts.role), actor: OPERATOR, dashboardUrl: config.dashboardUrl, now: Date.now() });
        printResult(output(), { id: invitation.id, email, role: invitation.role, expiresAt: new Date(invitation.expiresAt).toISOString() },
          `${email} invited to "${org.name}" as ${invitation.role}`);
      }),
    );

  orgs.command("set-role <org>").description("change a member's role (an organization always keeps an owner)")
    .requiredOption("--email <email>", "the member").requiredOption("--role <role>", `${ROLES.join(", ")}`)
    .action(async (ref: string, opts: { email: string; role: string }) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const person = await requireAccount(store, opts.email);
        const change = { orgId: org.id, actor: OPERATOR, userId: person.id, role: roleFlag(opts.role), decide: everyone, now: Date.now() };
        const member = await asCli(async () => settled(await store.changeMember(change), MEMBER_NOT_FOUND));
        printResult(output(), memberView(member), `${member.email} is now ${member.role} of "${org.name}"`);
      }),
    );

  orgs.command("remove <org>").description("remove a member: its keys are revoked and its requests' reservations released")
    .requiredOption("--email <email>", "the member")
    .action(async (ref: string, opts: { email: string }) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const person = await requireAccount(store, opts.email);
        const removal = { orgId: org.id, actor: OPERATOR, userId: person.id, decide: everyone, now: Date.now() };
        const revoked = await asCli(async () => settled(await store.removeMember(removal), MEMBER_NOT_FOUND));
        printResult(output(), { email: person.email, revokedKeys: revoked.map((k) => k.id) },
          `${person.email} removed from "${org.name}"; ${revoked.length} key(s) revoked`);
      }),
    );
}
