import { Elysia } from "elysia";
import { accountView } from "../../../core/accounts/state.ts";
import { signedInAccount } from "../../../core/accounts/sign-in.ts";
import { MESSAGES } from "../../../core/errors.ts";
import type { AppDeps } from "../../deps.ts";
import { json, methodNotAllowed, plainError } from "../../http.ts";
import { accountCallerPlugin } from "../../session.ts";

/** `GET /account`: the signed-in account's e-mail, balance and settings. */
export const accountRoutes = (deps: AppDeps) =>
  new Elysia({ name: "account" })
    .all("/account", methodNotAllowed(plainError, "GET"))
    .use(accountCallerPlugin(deps))
    .get("/account", ({ session }) => {
      const view = accountView(signedInAccount(session, MESSAGES.accountNotFound));
      // Acting for an organization: which one, and the caller's role there.
      const { org } = session;
      return json(org ? { ...view, organization: { id: org.id, name: org.name, role: org.role } } : view);
    });
