import { describe, expect, test } from "bun:test";
import { accessRefusal, addressAllowed, isRestricted, parseAllowedIps, parseAllowedModels } from "../../../src/core/keys/allowlist.ts";

describe("parseAllowedIps", () => {
  test("keeps addresses and ranges in canonical form, each once, mapped IPv6 as the IPv4 it stands for", () => {
    expect(parseAllowedIps(["203.0.113.7", "10.9.8.7/8", "::ffff:192.168.1.0/120", "2001:DB8:0::1/32", "::1", "203.0.113.7/32"])).toEqual({
      value: ["203.0.113.7/32", "10.0.0.0/8", "192.168.1.0/24", "2001:db8::/32", "::1/128"],
    });
    expect(parseAllowedIps([])).toEqual({ value: [] });
    expect(parseAllowedIps(["::203.0.113.7", "::cb00:7100/120", "::/96", "::1"])).toEqual({
      value: ["203.0.113.7/32", "203.0.113.0/24", "::/96", "::1/128"],
    });
  });

  test.each([
    ["127.1"], ["0x7f.0.0.1"], ["1"], ["10.0.0.0/33"], ["2001:db8::/129"], ["10.0.0.0/8/8"], ["10.0.0.0/-1"], ["fe80::1%eth0"],
    ["example.com"], [""], ["10.0.0.256"], ["10.0.0.0/ 8"], ["203.000.113.005"], ["010.0.0.0/8"], ["::ffff:0x7f.0.0.1"],
  ])("refuses %p, naming it", (entry) => {
    const parsed = parseAllowedIps([entry]);
    expect(parsed).toEqual({ reason: `must be a list of IP addresses or CIDR ranges; \`${entry}\` is neither` });
  });

  test("refuses what is not a list of strings, or too long a list", () => {
    expect(parseAllowedIps("10.0.0.0/8")).toEqual({ reason: "must be a list of strings" });
    expect(parseAllowedIps([10])).toEqual({ reason: "must be a list of strings" });
    expect(parseAllowedIps(Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`))).toEqual({ reason: "must have at most 100 entries" });
  });
});

describe("parseAllowedModels", () => {
  test("keeps each ID once and refuses blanks and control characters", () => {
    expect(parseAllowedModels(["gpt-4.1", "gpt-4.1", "deepseek-chat"])).toEqual({ value: ["gpt-4.1", "deepseek-chat"] });
    expect(parseAllowedModels([""])).toEqual({ reason: "must be a list of model IDs" });
    expect(parseAllowedModels(["gpt 4"])).toEqual({ reason: "must be a list of model IDs" });
    expect(parseAllowedModels(["gpt\u0000"])).toEqual({ reason: "must be a list of model IDs" });
    expect(parseAllowedModels({ 0: "gpt-4.1" })).toEqual({ reason: "must be a list of strings" });
  });
});

describe("addressAllowed", () => {
  const office = ["198.51.100.0/24", "2001:db8:10::/48"];

  test.each([
    ["198.51.100.0", true], ["198.51.100.255", true], ["198.51.99.255", false], ["198.51.101.0", false],
    ["::ffff:198.51.100.42", true], ["::ffff:198.51.101.1", false],
    ["2001:db8:10::", true], ["2001:db8:10:ffff:ffff:ffff:ffff:ffff", true], ["2001:db8:11::", false], ["2001:db8:f::ffff", false],
    ["unknown", false], ["", false], ["::198.51.100.42", true],
    ["0xc6.51.100.7", false], ["198.051.100.007", false], ["0306.51.100.7", false], ["::ffff:198.051.100.7", false],
  ])("%p in the office's ranges: %p", (client, allowed) => {
    expect(addressAllowed(client, office)).toBe(allowed);
  });

  test("an IPv4 range never matches an IPv6 client outside the mapped space, nor the reverse", () => {
    expect(addressAllowed("::", ["0.0.0.0/0"])).toBe(false);
    expect(addressAllowed("10.0.0.1", ["::/0"])).toBe(false);
    expect(addressAllowed("10.0.0.1", ["0.0.0.0/0"])).toBe(true);
  });
});

describe("accessRefusal", () => {
  const key = { allowedModels: ["gpt-4.1"], allowedIps: ["198.51.100.0/24"] };
  const from = (ip: string) => () => ip;

  test("lets an allowed model through from an allowed address", () => {
    expect(accessRefusal(key, "gpt-4.1", from("198.51.100.9"))).toBeNull();
  });

  test("refuses another model with 403, naming it", () => {
    const refusal = accessRefusal(key, "deepseek-chat", from("198.51.100.9"));
    expect(refusal?.kind).toBe("permission_error");
    expect(refusal?.message).toBe("This API key may not use the model `deepseek-chat`");
  });

  test("refuses another address with 403, without the ranges", () => {
    const refusal = accessRefusal(key, "gpt-4.1", from("203.0.113.1"));
    expect(refusal?.kind).toBe("permission_error");
    expect(refusal?.message).toBe("This API key may not be used from this IP address");
    expect(refusal?.message).not.toContain("198.51");
  });

  test("a key without allowlists is not restricted and never asks for the address", () => {
    const open = { allowedModels: null, allowedIps: null };
    expect(isRestricted(open)).toBe(false);
    expect(isRestricted(key)).toBe(true);
    expect(accessRefusal(open, "anything", () => { throw new Error("asked for the address"); })).toBeNull();
  });
});
