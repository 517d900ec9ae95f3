// The column types every table shares. Money is integer nano-USD, times are epoch milliseconds,
// flags are 0/1 integers, so that one set of SQL statements serves both dialects.
import { integer } from "drizzle-orm/sqlite-core";
import type { Nanos } from "../../../core/money.ts";

export const bigint = (name: string) => integer(name, { mode: "number" });
/** Nano-USD: a 64-bit integer column that the store reads and writes as a bigint (`Nanos`). */
export const money = (name: string) => integer(name, { mode: "number" }).$type<Nanos>();
// drizzle-kit writes a default's runtime value into its snapshots and cannot write a bigint:
// the number 0 keeps the migrations as they are.
export const NO_NANOS = 0 as unknown as Nanos;
