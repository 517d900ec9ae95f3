import type { Command } from "commander";
import { parseGrant } from "../../core/admin/rules.ts";
import { nameHolder, orgView, parseOrgName } from "../../core/orgs/requests.ts";
import type { Store } from "../../core/ports.ts";
import { withStore } from "../context.ts";
import { CliError, exactUsd, printRecords, printResult, type Output } from "../output.ts";
import { requireAccount } from "../args.ts";
import { asCli, operator, requireOrg } from "./orgs-args.ts";
import { registerOrgPeople } from "./orgs-people.ts";
import { grantRecord, membershipRecord, orgRecord } from "../records.ts";

/** A name for an organization: valid, and no other organization's (case aside). */
async function freeName(store: Store, raw: string, self?: string): Promise<string> {
  const name = await asCli(async () => parseOrgName({ name: raw }));
  const holder = nameHolder(await store.listOrgs(), name, self);
  if (holder) throw new CliError(`organization ${holder.id} is already named "${holder.name}": choose another name`);
  return name;
}

export function registerOrgs(program: Command, output: () => Output): void {
  const orgs = program.command("orgs").description("organizations: one balance, several people");

  orgs.command("create").description("make an organization with its first owner (a name no other organization has)")
    .requiredOption("--email <email>", "the owner's e-mail").requiredOption("--name <name>", "its name")
    .action(async (opts: { email: string; name: string }) =>
      withStore({}, async ({ store }) => {
        const owner = await requireAccount(store, opts.email);
        const name = await freeName(store, opts.name);
        const org = await store.createOrg({ name, owner: owner.id, actor: operator(), now: Date.now() });
        // As POST /orgs answers its maker.
        printResult(output(), orgView(org, "owner"), `organization ${org.id} ("${org.name}") made, owned by ${owner.email}`);
      }),
    );

  orgs.command("list").description("every organization, or one person's with its role")
    .option("--email <email>", "only this person's organizations")
    .action(async (opts: { email?: string }) =>
      withStore({}, async ({ store }) => {
        if (opts.email) {
          const person = await requireAccount(store, opts.email);
          printRecords(output(), await store.listMemberships(person.id), membershipRecord, { id: (m) => m.org.id, name: (m) => m.org.name, role: (m) => m.role });
          return;
        }
        printRecords(output(), await store.listOrgs(), orgRecord, {
          id: (o) => o.id, name: (o) => o.name, members: (o) => o.members, "balance USD": (o) => exactUsd(o.balance),
        });
      }),
    );

  orgs.command("rename <org>").description("give the organization another name (no other organization's)")
    .requiredOption("--name <name>", "the new name")
    .action(async (ref: string, opts: { name: string }) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const name = await freeName(store, opts.name, org.id);
        const renamed = await store.renameOrg(org.id, name, operator(), Date.now());
        if (!renamed) throw new CliError(`no organization "${ref}" (see: gateway orgs list)`);
        // As PATCH /orgs/{id} answers an owner: the CLI acts as one.
        printResult(output(), orgView(renamed, "owner"), `organization ${renamed.id} renamed "${renamed.name}"`);
      }),
    );

  orgs.command("delete <org>").description("delete an organization whose balance is zero and that has no request in flight; its keys are revoked")
    .action(async (ref: string) =>
      withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const outcome = await store.deleteOrg(org.id, operator(), Date.now());
        if (outcome === "not_found") throw new CliError(`no organization "${ref}" (see: gateway orgs list)`);
        if (outcome === "not_empty") {
          throw new CliError(`"${org.name}" can be deleted only when its balance is zero and no request is in flight (see: gateway orgs list)`);
        }
        printResult(output(), { success: true }, `organization ${org.id} ("${org.name}") deleted`);
      }),
    );

  orgs.command("grant <org>").description("add credits to the organization (a negative amount takes them back, never below zero)")
    .requiredOption("--usd <amount>", "USD, e.g. 25 or -2.50 (at most 1000000 either way)").option("--note <text>", "why, kept in the ledger")
    .action(async (ref: string, opts: { usd: string; note?: string }) => {
      // The console's bounds: non-zero, at most 1,000,000 USD either way, 9 decimals, a short note.
      const grant = await asCli(async () => parseGrant({ usd: opts.usd, note: opts.note }));
      await withStore({}, async ({ store }) => {
        const org = await requireOrg(store, ref);
        const outcome = await store.grantCredit({ orgId: org.id, ...grant, actor: operator(), now: Date.now() });
        if ("refused" in outcome && outcome.refused === "below_zero") {
          throw new CliError(`${exactUsd(grant.amount)} USD would take the balance of "${org.name}" (${exactUsd(outcome.balance)} USD) below zero`);
        }
        if ("refused" in outcome) throw new CliError(`no organization "${ref}" (see: gateway orgs list)`);
        // As an account's grant (POST /admin/accounts/{email}/credits), the organization named by id and name.
        printResult(output(), { id: org.id, name: org.name, ...grantRecord(grant, outcome.ok.balance) },
          `${grant.kind} of ${exactUsd(grant.amount)} USD to "${org.name}"; balance ${exactUsd(outcome.ok.balance)} USD`);
      });
    });

  registerOrgPeople(orgs, output);
}
