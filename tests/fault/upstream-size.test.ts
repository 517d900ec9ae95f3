// A provider that answers more than any completion could hold: the gateway stops reading at
// 10 MB instead of buffering on, answers the spec's provider error, and releases the reservation.
import { afterAll, afterEach, expect, test } from "bun:test";
import { nanos } from "../../src/core/money.ts";
import { fundedKey } from "../support/accounts.ts";
import { expectBooksClosed, usageOutcomes } from "../support/books.ts";
import { chatErrorShape, hello, postChat } from "../support/chat.ts";
import { describeEachDialect } from "../support/databases.ts";
import { providerEnv, startFakeUpstream } from "../support/fake-upstream.ts";
import { readJson } from "../support/http.ts";
import { useGateway } from "../support/server.ts";
import { waitFor } from "../support/wait.ts";

const fake = startFakeUpstream();
afterAll(() => fake.stop());
afterEach(() => fake.behave({}));

const OVER_THE_CAP = 11 * 1024 * 1024;

describeEachDialect("chat: a provider answer past the 10 MB cap", (dialect) => {
  const gateway = useGateway(dialect, providerEnv(fake));

  test.each(["length", "chunked", "gzip"] as const)("non-streaming, framed by %s: 502 provider_error naming the cap; nothing charged, the usage log records it", async (framing) => {
    fake.behave({ oversizedBytes: OVER_THE_CAP, oversizedFraming: framing });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(502);
    const body = await readJson(res);
    expect(body).toEqual(chatErrorShape(502, "provider_error"));
    expect(body.error.message).toBe("Upstream provider response exceeds 10 MB");
    const audit = await expectBooksClosed(gateway().store, account.id);
    expect(audit.balance).toBe(nanos(2_000_000_000n));
    expect(await usageOutcomes(gateway().db, account.id)).toEqual([{ status: "error", error: "Upstream provider response exceeds 10 MB" }]);
  });

  test("streaming: an event that runs past the cap without ending ends the stream with an error chunk; nothing charged", async () => {
    fake.behave({ oversizedBytes: OVER_THE_CAP });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello("gpt-4.1-nano", { stream: true }));
    expect(res.status).toBe(200);
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(JSON.parse(events.at(-1)!.slice("data: ".length))).toEqual(chatErrorShape(502, "provider_error"));
    expect(events).not.toContain("data: [DONE]");
    const audit = await expectBooksClosed(gateway().store, account.id);
    expect(audit.balance).toBe(nanos(2_000_000_000n));
    await waitFor(() => fake.openStreams() === 0, "the oversized upstream stream to be aborted");
  });

  test("an answer just under the cap is relayed and charged as usual", async () => {
    fake.behave({ oversizedBytes: 9 * 1024 * 1024 });
    const { secret, account } = await fundedKey(gateway().store, "2");
    const res = await postChat(gateway().url, secret, hello());
    expect(res.status).toBe(200);
    expect((await readJson(res)).choices[0].message.content).toHaveLength(9 * 1024 * 1024);
    await expectBooksClosed(gateway().store, account.id);
  });
});
