// The data model, written once, by subject, in src/db/schema/sqlite/: src/db/schema/pg/ and
// pg.gen.ts are generated from it for Postgres (scripts/schema-pg.ts, run by `make migrations`).
// Money is integer nano-USD, times are epoch milliseconds, flags are 0/1 integers, so that one
// set of SQL statements serves both dialects (src/db/schema/sqlite/columns.ts).
export * from "./sqlite/accounts.ts";
export * from "./sqlite/billing.ts";
export * from "./sqlite/catalog.ts";
export * from "./sqlite/keys.ts";
export * from "./sqlite/outbox.ts";
export * from "./sqlite/purchases.ts";
export * from "./sqlite/responses.ts";
export * from "./sqlite/security.ts";
