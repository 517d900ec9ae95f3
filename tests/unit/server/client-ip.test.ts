import { describe, expect, test } from "bun:test";
import { clientIp } from "../../../src/server/client-ip.ts";

const peer = (address: string) => ({ requestIP: () => ({ address }) });
const request = (forwarded?: string) =>
  new Request("http://gateway.test/", { headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded } });

describe("clientIp behind a trusted proxy", () => {
  test.each([
    ["10.9.9.9, 203.0.113.5", "203.0.113.5"],
    ["203.0.113.5", "203.0.113.5"],
    ["10.0.0.1,2001:DB8::5", "2001:db8::5"],
    ["::ffff:203.0.113.5", "203.0.113.5"],
  ])("believes the right-most X-Forwarded-For entry %p, read as %p", (forwarded, address) => {
    expect(clientIp(request(forwarded), peer("192.0.2.1"), true)).toBe(address);
  });

  test.each([
    ["0xcb.0.113.5"], ["203.000.113.005"], ["203.0.113.5, 0313.0.113.5"], ["garbage"], ["203.0.113.5:443"], [""], ["203.1"],
  ])("falls back to the proxy's address when the entry %p is not an address to the strict parser", (forwarded) => {
    expect(clientIp(request(forwarded), peer("192.0.2.1"), true)).toBe("192.0.2.1");
  });
});

describe("clientIp without a trusted proxy", () => {
  test("ignores X-Forwarded-For and reads the peer, an IPv4-mapped one as IPv4", () => {
    expect(clientIp(request("203.0.113.5"), peer("::ffff:192.0.2.1"), false)).toBe("192.0.2.1");
    expect(clientIp(request(), peer("2001:db8::1"), false)).toBe("2001:db8::1");
    expect(clientIp(request(), null, false)).toBe("unknown");
  });
});
