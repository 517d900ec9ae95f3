// A customer with some usage to show: signed up and verified, a "Backend" key, and two cheap
// requests and one dear one (so that the busiest model is not the one that spent most).
import { expect } from "bun:test";
import { verifyEmail } from "../../support/accounts.ts";
import { hello, postChat } from "../../support/chat.ts";
import { readJson } from "../../support/http.ts";
import type { TestGateway } from "../../support/server.ts";
import { signUpUser, type Browser as SignedIn } from "../../support/session.ts";

export async function customerWithUsage(gateway: TestGateway): Promise<SignedIn> {
  const customer = await signUpUser(gateway.url);
  await verifyEmail(gateway.store, customer.email);
  const { key } = await readJson(await customer.send("POST", "/keys/generate", { name: "Backend" }));
  for (const model of ["gpt-4.1-nano", "gpt-4.1-nano", "gpt-5.5"]) expect((await postChat(gateway.url, key, hello(model))).status).toBe(200);
  return customer;
}
