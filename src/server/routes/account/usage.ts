import { Elysia } from "elysia";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { AppError, MESSAGES } from "../../../core/errors.ts";
import { usageCsv, usageCsvFilename } from "../../../core/usage/export.ts";
import { ownUsage, parseUsageFilter } from "../../../core/usage/filter.ts";
import type { AppDeps } from "../../deps.ts";
import { methodNotAllowed, plainError } from "../../http.ts";
import { accountCallerPlugin } from "../../session.ts";

/**
 * `GET /usage/export`: the latest 1,000 usage logs as a CSV download, streamed page by page;
 * narrowed, when given, by the usage table's filters (`key`, `model`, `status`, `from`, `to`).
 * In an organization a member exports its own usage and owners and admins everyone's, with the
 * member and the key named on each row.
 */
export const usageRoutes = (deps: AppDeps) => {
  const { store, log, now } = deps;
  return new Elysia({ name: "usage" })
    .all("/usage/export", methodNotAllowed(plainError, "GET"))
    .use(accountCallerPlugin(deps))
    .get("/usage/export", async ({ session, query }) => {
      const account = signedInAccount(session, MESSAGES.userNotFound);
      const filter = ownUsage(session, parseUsageFilter(query));
      const chunks = usageCsv(store, account.id, { filter, kind: session.org ? "organization" : "personal" });
      let first: IteratorResult<string>;
      try {
        // The first page is read before answering, so a failing query is still a clean 500.
        first = await chunks.next();
      } catch (error) {
        log.error("usage export failed", { error, accountId: account.id });
        throw new AppError("internal", MESSAGES.exportFailed);
      }
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          if (!first.done) controller.enqueue(encoder.encode(first.value));
        },
        async pull(controller) {
          try {
            const next = await chunks.next();
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(next.value));
          } catch (error) {
            // Headers are gone by now: cutting the stream short is the only signal left.
            log.error("usage export failed mid-stream", { error, accountId: account.id });
            controller.error(error);
          }
        },
        async cancel() {
          await chunks.return(undefined);
        },
      });
      return new Response(body, {
        headers: {
          "content-type": "text/csv",
          "content-disposition": `attachment; filename="${usageCsvFilename(now())}"`,
        },
      });
    });
};
