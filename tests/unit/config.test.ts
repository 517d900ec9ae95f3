import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

test("DATABASE_PREPARED_STATEMENTS is on or off, on by default", () => {
  expect(loadConfig({}).databasePreparedStatements).toBe(true);
  expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: "off" }).databasePreparedStatements).toBe(false);
  expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: "ON" }).databasePreparedStatements).toBe(true);
  expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: "no" }))
    .toThrow(new ConfigError('DATABASE_PREPARED_STATEMENTS must be one of on, off (got "no")'));
});

test("STRIPE_INVOICES is on or off, off by default; anything else stops the start", () => {
  expect(loadConfig({}).stripe.invoices).toBe(false);
  expect(loadConfig({ STRIPE_INVOICES: "on" }).stripe.invoices).toBe(true);
  expect(loadConfig({ STRIPE_INVOICES: "Off" }).stripe.invoices).toBe(false);
  expect(() => loadConfig({ STRIPE_INVOICES: "yes" })).toThrow(new ConfigError('STRIPE_INVOICES must be one of on, off (got "yes")'));
});

test("webhook settings: private addresses off and a 10 s receiver timeout by default", () => {
  expect(loadConfig({})).toMatchObject({ webhookAllowPrivate: false, webhookTimeoutMs: 10_000 });
  expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_MS: "500" })).toMatchObject({ webhookAllowPrivate: true, webhookTimeoutMs: 500 });
  expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: "0" })).toThrow(ConfigError);
});

test.each(["999.1.1.1", "1.2.3", "[::1]", "host name", "-leading.example.com"])("HOST=%s is refused naming HOST, not PUBLIC_URL", (host) => {
  expect(() => loadConfig({ HOST: host })).toThrow(`HOST must be an IP address or a host name`);
});

test.each(["127.0.0.1", "0.0.0.0", "::", "::1", "localhost", "gateway-1.internal"])("HOST=%s is taken", (host) => {
  expect(loadConfig({ HOST: host }).host).toBe(host);
});
