// A test file's world for the dashboard: a gateway on SQLite beside a fake of what lives off
// this machine (a provider, or Stripe), and Chromium, started before the file's tests and
// stopped after them. The file's own `beforeAll` runs after this one's, so it may use them.
import { afterAll, beforeAll } from "bun:test";
import type { Browser } from "playwright-core";
import { startFakeStripe, stripeEnv, type FakeStripe } from "../../support/fake-stripe.ts";
import { providerEnv, startFakeUpstream, type FakeUpstream } from "../../support/fake-upstream.ts";
import { startGateway, type TestGateway } from "../../support/server.ts";
import { launchChromium } from "./browser.ts";

export interface DashboardWorld<F> {
  fake: F;
  gateway: TestGateway;
  browser: Browser;
}

/** Its fields are set once `beforeAll` has run. */
function useDashboardWorld<F extends { stop(): unknown }>(startFake: () => F, env: (fake: F) => Record<string, string>): DashboardWorld<F> {
  const world = {} as DashboardWorld<F>;
  beforeAll(async () => {
    world.fake = startFake();
    world.gateway = await startGateway("sqlite", env(world.fake));
    world.browser = await launchChromium();
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.gateway?.stop();
    await world.fake?.stop();
  });
  return world;
}

/** The gateway serving chat through a fake provider. */
export const useProviderDashboard = (): DashboardWorld<FakeUpstream> => useDashboardWorld(startFakeUpstream, providerEnv);

/** The payment pages: the gateway paying through the fake Stripe, with no free credits (every balance is what the test bought). */
export const useStripeDashboard = (): DashboardWorld<FakeStripe> =>
  useDashboardWorld(startFakeStripe, (fake) => ({ ...stripeEnv(fake), FREE_CREDITS_USD: "0" }));
