import type { ApiKey } from "../entities.ts";

/**
 * The keys that a rotation replaced. A rotation revokes the old key and creates its successor
 * (same name, same kind) in one transaction at one instant, so the old key's revocation time is
 * its successor's creation time; a key revoked by hand has no such twin.
 */
export function replacedByRotation(keys: ApiKey[]): Set<string> {
  const created = new Set(keys.map((k) => `${k.kind}\u0000${k.name}\u0000${k.createdAt}`));
  return new Set(keys.filter((k) => k.revokedAt !== null && created.has(`${k.kind}\u0000${k.name}\u0000${k.revokedAt}`)).map((k) => k.id));
}
