import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bigint } from "./columns.ts";

// The Responses API's stored state: each response the gateway answered with `store` on (its
// Response object, and the response it continues), and its items, input then output, in order.
// A turn keeps only its own items: a conversation is the chain of its responses, walked back
// through `previous_response_id`, so it weighs what its items weigh. Both expire together.
export const storedResponses = sqliteTable("stored_responses", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  previousResponseId: text("previous_response_id"),
  body: text("body").notNull(),
  createdAt: bigint("created_at").notNull(),
  expiresAt: bigint("expires_at").notNull(),
}, (t) => [
  index("stored_responses_account_idx").on(t.accountId, t.createdAt),
  index("stored_responses_expires_idx").on(t.expiresAt),
]);

export const responseItems = sqliteTable("response_items", {
  responseId: text("response_id").notNull(),
  position: bigint("position").notNull(),
  accountId: text("account_id").notNull(),
  // The item's own id (`msg_…`, `fc_…`), which `item_reference` names; not unique, since a
  // client may send an earlier output item back as input.
  itemId: text("item_id").notNull(),
  kind: text("kind").notNull(), // `input` or `output`
  body: text("body").notNull(),
}, (t) => [
  primaryKey({ columns: [t.responseId, t.position] }),
  index("response_items_item_idx").on(t.accountId, t.itemId),
]);

