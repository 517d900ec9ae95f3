/**
 * The `SET` list of an UPDATE for the fields present in `change`, with their parameters.
 * Column names come from the caller's fixed map, never from input.
 */
export function setClause<T extends object>(
  change: T,
  columns: { [K in keyof T]-?: string },
): { sql: string; params: unknown[] } {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const field of Object.keys(columns) as (keyof T)[]) {
    if (change[field] === undefined) continue;
    sets.push(`${columns[field]} = ?`);
    params.push(change[field]);
  }
  return { sql: sets.join(", "), params };
}
