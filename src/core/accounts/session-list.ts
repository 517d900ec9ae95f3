import type { AccountSecurityStore } from "./store.ts";
import { sessionId } from "./session.ts";
import { AppError } from "../errors.ts";

/** `GET /auth/sessions`: the account's live sessions, newest first, the caller's marked `current`. */
export async function sessionList(store: AccountSecurityStore, accountId: string, currentHash: string, now: number) {
  const sessions = await store.listSessions(accountId, now);
  return {
    sessions: sessions.map((s) => ({
      id: sessionId(s.tokenHash),
      createdAt: new Date(s.createdAt).toISOString(),
      lastSeenAt: new Date(s.lastSeenAt ?? s.createdAt).toISOString(),
      ip: s.ip,
      userAgent: s.userAgent,
      current: s.tokenHash === currentHash,
    })),
  };
}

interface EndContext {
  accountId: string;
  currentHash: string;
  ip: string;
  now: number;
}

/** `DELETE /auth/sessions/{id}`: ends one of the account's sessions (the caller's own too); 404 when it has none with that id. */
export async function endSession(store: AccountSecurityStore, id: string, ctx: EndContext): Promise<void> {
  const target = (await store.listSessions(ctx.accountId, ctx.now)).find((s) => sessionId(s.tokenHash) === id);
  const detail = target?.tokenHash === ctx.currentHash ? "signed out" : "ended from another session";
  const ended = target ? await store.endSessions({ accountId: ctx.accountId, tokenHashes: [target.tokenHash], ip: ctx.ip, detail, now: ctx.now }) : 0;
  if (ended === 0) throw new AppError("not_found", "Session not found");
}

/** `POST /auth/sessions/revoke-others`: ends every session of the account but the caller's. */
export async function endOtherSessions(store: AccountSecurityStore, ctx: EndContext): Promise<number> {
  const others = (await store.listSessions(ctx.accountId, ctx.now)).filter((s) => s.tokenHash !== ctx.currentHash);
  if (others.length === 0) return 0;
  return store.endSessions({
    accountId: ctx.accountId, tokenHashes: others.map((s) => s.tokenHash), ip: ctx.ip, detail: "ended from another session", now: ctx.now,
  });
}
