/**
 * Postgres: an admission commits without waiting for its WAL to reach the disk
 * (synchronous_commit off, for its own transaction only). That wait was a third of a lone
 * request's time (~270 µs here). It is safe for the ledger: an admission is a hold, not money.
 * Were the database server to crash before flushing it (a commit that no later synchronous
 * commit has flushed, at most a few hundred milliseconds old), the reservation row and the
 * account's held amount vanish together, and the request's settlement, finding no reservation,
 * charges its cost all the same (as for a reservation the sweeper released). Settlements,
 * releases and every other write keep synchronous commits: they are the money.
 */
export const SET_ASYNC_COMMIT = "SELECT set_config('synchronous_commit', 'off', true)";

/** The same as a CTE (`async_commit.off` is true), for a single-statement transaction. */
export const ASYNC_COMMIT = `async_commit AS MATERIALIZED (SELECT ${SET_ASYNC_COMMIT.slice("SELECT ".length)} = 'off' AS off)`;
