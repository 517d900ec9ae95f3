import { describe, expect, test } from "bun:test";
import { refusedAddress } from "../../../src/core/webhooks/addresses.ts";
import { parseEndpointUrl, signEvent } from "../../../src/core/webhooks/events.ts";
import { createHmac } from "node:crypto";

describe("refusedAddress", () => {
  test.each([
    ["8.8.8.8"], ["1.1.1.1"], ["9.255.255.255"], ["11.0.0.0"], ["172.15.255.255"], ["172.32.0.0"], ["192.167.255.255"],
    ["100.63.255.255"], ["100.128.0.0"], ["2606:4700:4700::1111"], ["::ffff:8.8.8.8"],
  ])("lets the public address %p through", (address) => {
    expect(refusedAddress(address)).toBeNull();
  });

  test.each([
    ["10.0.0.0", "private"], ["10.255.255.255", "private"], ["172.16.0.0", "private"], ["172.31.255.255", "private"],
    ["192.168.0.1", "private"], ["127.0.0.1", "loopback"], ["127.255.255.254", "loopback"], ["0.0.0.0", "unspecified"],
    ["169.254.169.254", "link local"], ["100.64.0.0", "carrier grade nat"], ["100.127.255.255", "carrier grade nat"],
    ["224.0.0.1", "multicast"], ["255.255.255.255", "broadcast"], ["::1", "loopback"], ["::", "unspecified"],
    ["fe80::1", "link local"], ["fd00:ec2::254", "unique local"], ["fc00::1", "unique local"],
    ["::ffff:127.0.0.1", "loopback"], ["::ffff:10.1.2.3", "private"], ["::ffff:169.254.169.254", "link local"],
  ])("refuses %p (%s)", (address, range) => {
    expect(refusedAddress(address)).toEndWith(`is in the ${range} range`);
  });

  test.each([
    ["::127.0.0.1", "127.0.0.1 is in the loopback range"],
    ["::7f00:1", "127.0.0.1 is in the loopback range"],
    ["::a9fe:a9fe", "169.254.169.254 is in the link local range"],
    ["::10.0.0.1", "10.0.0.1 is in the private range"],
    ["::ffff:7f00:1", "127.0.0.1 is in the loopback range"],
    ["64:ff9b::127.0.0.1", "64:ff9b::7f00:1 (127.0.0.1) is in the loopback range"],
    ["64:ff9b::a9fe:a9fe", "64:ff9b::a9fe:a9fe (169.254.169.254) is in the link local range"],
    ["2002:7f00:1::", "2002:7f00:1:: (127.0.0.1) is in the loopback range"],
    ["2002:c0a8:101::1", "2002:c0a8:101::1 (192.168.1.1) is in the private range"],
  ])("judges %p as the IPv4 address it carries", (address, refusal) => {
    expect(refusedAddress(address)).toBe(refusal);
  });

  test.each([["::8.8.8.8"], ["64:ff9b::808:808"], ["2002:808:808::1"]])("lets %p through: the IPv4 address it carries is public", (address) => {
    expect(refusedAddress(address)).toBeNull();
  });

  test("refuses what is not an address, or an address some would read otherwise", () => {
    expect(refusedAddress("receiver.example")).toBe("receiver.example is not an IP address");
    expect(refusedAddress("0x7f.0.0.1")).toBe("0x7f.0.0.1 is not an IP address");
    expect(refusedAddress("::ffff:127.000.0.1")).toBe("::ffff:127.000.0.1 is not an IP address");
  });
});

describe("webhook URLs and signatures", () => {
  test("https only, unless private addresses are allowed, and no credentials", () => {
    expect(parseEndpointUrl("https://hooks.example.com/x", false)).toHaveProperty("url");
    expect(parseEndpointUrl("http://hooks.example.com/x", false)).toEqual({ reason: "url must use https" });
    expect(parseEndpointUrl("http://127.0.0.1:9/x", true)).toHaveProperty("url");
    expect(parseEndpointUrl("ftp://hooks.example.com/x", true)).toEqual({ reason: "url must use https" });
    expect(parseEndpointUrl("https://[::127.0.0.1]/", false)).toEqual({ reason: "url must point at a public address: 127.0.0.1 is in the loopback range" });
    expect(parseEndpointUrl("https://[::127.0.0.1]/", true)).toHaveProperty("url");
    expect(parseEndpointUrl(42, false)).toEqual({ reason: "url must be a URL such as https://example.com/hooks/gateway" });
  });

  test("signs as Stripe does: t=<seconds>,v1=HMAC-SHA256(secret, t.body)", () => {
    const body = '{"id":"e1"}';
    const v1 = createHmac("sha256", "whsec_x").update(`1700000000.${body}`).digest("hex");
    expect(signEvent("whsec_x", body, 1_700_000_000)).toBe(`t=1700000000,v1=${v1}`);
  });
});
