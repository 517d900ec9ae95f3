import { expect, test } from "bun:test";
import type { StreamSink } from "../../../src/core/chat/relay.ts";
import { sseResponse } from "../../../src/server/chat/sse-response.ts";
import { waitFor } from "../../support/wait.ts";

/** A response whose relay writes `events`, recording what it was told. */
function recorded(events: string[]) {
  const told: string[] = [];
  const response = sseResponse({
    relay: async (sink: StreamSink) => {
      told.push(`relay, client gone: ${sink.gone}`);
      for (const event of events) sink.emit(event);
      await sink.flush();
      sink.emitBytes(new TextEncoder().encode("data: [DONE]\n\n"));
      told.push("relay ended");
    },
    clientLeft: async () => void told.push("client left"),
  });
  return { told, response };
}

test("a stream read to its end has every event, and its client is not said to have left", async () => {
  const { told, response } = recorded(["data: a\n\n", "data: b\n\n"]);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  expect(await response.text()).toBe("data: a\n\ndata: b\n\ndata: [DONE]\n\n");
  expect(told).toEqual(["relay, client gone: false", "relay ended"]);
});

test("a client gone before the body began is told of, and the relay still runs, writing nowhere", async () => {
  const { told, response } = recorded(["data: a\n\n"]);
  await response.body!.cancel();
  await waitFor(async () => told.includes("relay ended"), "the relay to end");
  expect(told).toEqual(["client left", "relay, client gone: true", "relay ended"]);
});
