// A file's world for the dashboard's payment pages: a gateway on SQLite paying through the fake
// Stripe, with no free credits (so every balance is what the test bought), and Chromium.
import { afterAll, beforeAll } from "bun:test";
import type { Browser } from "playwright-core";
import { startFakeStripe, stripeEnv, type FakeStripe } from "../../support/fake-stripe.ts";
import { startGateway, type TestGateway } from "../../support/server.ts";
import { launchChromium } from "./browser.ts";

export interface StripeDashboard {
  fake: FakeStripe;
  gateway: TestGateway;
  browser: Browser;
}

/** Started before the file's tests and stopped after them; its fields are set once `beforeAll` has run. */
export function useStripeDashboard(): StripeDashboard {
  const world = {} as StripeDashboard;
  beforeAll(async () => {
    world.fake = startFakeStripe();
    world.gateway = await startGateway("sqlite", { ...stripeEnv(world.fake), FREE_CREDITS_USD: "0" });
    world.browser = await launchChromium();
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.gateway?.stop();
    await world.fake?.stop();
  });
  return world;
}
