import { describe, expect, test } from "bun:test";
import { parseIpAddress, parseIpLiteral } from "../../src/core/ip-address.ts";

describe("parseIpAddress", () => {
  test.each([
    ["203.0.113.5", "203.0.113.5"], ["0.0.0.0", "0.0.0.0"], ["255.255.255.255", "255.255.255.255"],
    ["2001:DB8::1", "2001:db8::1"], ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"], ["::1", "::1"], ["::", "::"],
    ["::ffff:203.0.113.5", "203.0.113.5"], ["::ffff:cb00:7105", "203.0.113.5"], ["::203.0.113.5", "203.0.113.5"],
    ["::cb00:7105", "203.0.113.5"], ["64:ff9b::203.0.113.5", "64:ff9b::cb00:7105"], ["1:2:3:4:5:6:7.8.9.10", "1:2:3:4:5:6:708:90a"],
  ])("reads %p as %p", (text, address) => {
    expect(parseIpAddress(text)?.toString()).toBe(address);
  });

  test.each([
    ["0xcb.0.113.5"], ["203.000.113.005"], ["203.0.113.05"], ["0313.0.113.5"], ["203.0.113"], ["203.1"], ["3405803781"],
    ["203.0.113.256"], ["203.0.113.5 "], ["+203.0.113.5"], ["203.0.113.5:443"], ["[2001:db8::1]"], ["fe80::1%eth0"],
    ["::ffff:0x7f.0.0.1"], ["::ffff:127.000.0.1"], ["::ffff:127.1"], ["1.2.3.4::"], ["example.com"], [""], ["unknown"], ["2001:db8::g"],
  ])("refuses %p", (text) => {
    expect(parseIpAddress(text)).toBeNull();
  });

  test("parseIpLiteral keeps the IPv6 form as written", () => {
    expect(parseIpLiteral("::ffff:203.0.113.5")?.toString()).toBe("::ffff:cb00:7105");
    expect(parseIpLiteral("::203.0.113.5")?.toString()).toBe("::cb00:7105");
  });
});
