// Text with control characters, NUL above all, wherever a user can put text into a query: a
// 4xx on both dialects. Postgres refuses a NUL in a text parameter, which was a 500 (found by
// tests/fuzz/endpoints.test.ts).
import { beforeAll, expect, test } from "bun:test";
import { describeEachDialect } from "../support/databases.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { PASSWORD, request, signUpUser, type Browser } from "../support/session.ts";

describeEachDialect("control characters in user text", (dialect) => {
  const gateway = useGateway(dialect);
  let user: Browser;
  let keyId: string;
  beforeAll(async () => {
    user = await signUpUser(gateway().url);
    await user.send("POST", "/keys/generate", { name: "plain" });
    keyId = (await readJson(await user.send("GET", "/keys/generate"))).keys[0].id;
  });

  test.each(["a\u0000b@example.com", "a\nb@example.com", "ab@exam\u0007ple.com"])("sign-up refuses the e-mail %j with 400", async (email) => {
    const res = await request(gateway().url, "POST", "/auth/signup", { email, password: PASSWORD });
    expect(res.status).toBe(400);
    expect(await readJson(res)).toEqual({ error: "email must be a valid e-mail address" });
  });

  test("sign-in with such an e-mail is the usual 401", async () => {
    const res = await request(gateway().url, "POST", "/auth/login", { email: "a\u0000b@example.com", password: PASSWORD });
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual({ error: "Invalid email or password" });
  });

  test.each(["nul\u0000name", "line\nbreak", "bell\u0007"])("a key name %j is a validation error on generate and on edit", async (name) => {
    const expected = { error: "validation error", message: "name must not contain control characters" };
    const created = await user.send("POST", "/keys/generate", { name });
    expect([created.status, await readJson(created)]).toEqual([400, expected]);
    const edited = await user.send("PATCH", `/keys/${keyId}`, { name });
    expect([edited.status, await readJson(edited)]).toEqual([400, expected]);
  });

  test.each(["%00", "not-a-uuid", `${"0".repeat(8)}-0000-0000-0000-00000000000%00`])("a key ID %s in the path names no key", async (id) => {
    const answers = await Promise.all([
      user.send("PATCH", `/keys/${id}`, { name: "x" }),
      user.send("POST", `/keys/${id}/rotate`),
      user.send("DELETE", `/keys/${id}/revoke`),
      user.send("DELETE", `/keys/${id}`),
    ]);
    expect(await Promise.all(answers.map(async (r) => [r.status, await readJson(r)]))).toEqual([
      [403, { error: "Forbidden or key not found" }],
      [404, { error: "Key not found or already revoked" }],
      [404, { error: "Key not found" }],
      [404, { error: "Key not found" }],
    ]);
  });
});
