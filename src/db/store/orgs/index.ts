import type { OrgStore } from "../../../core/orgs/store.ts";
import type { Database } from "../../database.ts";
import { acceptInvitation, invite, listInvitations, resendInvitation, revokeInvitation } from "./invitations.ts";
import { addMember, changeMember, listMembers, removeMember } from "./members.ts";
import { grantCredit } from "./grants.ts";
import { createOrg, deleteOrg, findMembership, findOrg, listMemberships, listOrgs, renameOrg } from "./orgs.ts";
import { transfer } from "./transfers.ts";

// Organization and invitation ids are UUIDs. Any other string, from a URL path, names none and
// is not sent to the database: Postgres refuses a parameter holding a NUL with an error.
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const valid = (...ids: string[]) => ids.every((id) => ID.test(id));

export const orgStore = (db: Database): OrgStore => ({
  createOrg: (input) => db.transaction(createOrg(input)),
  listMemberships: (userId) => db.run(listMemberships(userId)),
  findMembership: async (orgId, userId) => (valid(orgId) ? db.run(findMembership(orgId, userId)) : null),
  findOrg: async (orgId) => (valid(orgId) ? db.run(findOrg(orgId)) : null),
  renameOrg: async (orgId, name, actor, now) => (valid(orgId) ? db.transaction(renameOrg(orgId, name, actor, now)) : null),
  deleteOrg: async (orgId, actor, now) => (valid(orgId) ? db.transaction(deleteOrg(db.dialect, orgId, actor, now)) : "not_found"),
  listMembers: (orgId, now) => db.run(listMembers(orgId, now)),
  changeMember: async (input) => (valid(input.orgId, input.userId) ? db.transaction(changeMember(db.dialect, input)) : { refused: "not_found" }),
  removeMember: async (input) => (valid(input.orgId, input.userId) ? db.transaction(removeMember(db.dialect, input)) : { refused: "not_found" }),
  invite: (input) => db.transaction(invite(db.dialect, input)),
  listInvitations: (orgId, now) => db.run(listInvitations(orgId, now)),
  resendInvitation: async (input) => (valid(input.id) ? db.transaction(resendInvitation(db.dialect, input)) : null),
  revokeInvitation: async (orgId, id, actor, now) => (valid(id) ? db.transaction(revokeInvitation(orgId, id, actor, now)) : null),
  acceptInvitation: (input) => db.transaction(acceptInvitation(input)),
  transfer: (input) => db.transaction(transfer(db.dialect, input)),
  addMember: async (input) => (valid(input.orgId, input.userId) ? db.transaction(addMember(db.dialect, input)) : { refused: "not_found" }),
  grantCredit: async (input) => (valid(input.orgId) ? db.transaction(grantCredit(db.dialect, input)) : { refused: "not_found" }),
  listOrgs: () => db.run(listOrgs()),
});
