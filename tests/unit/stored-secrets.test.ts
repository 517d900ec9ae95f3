import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/core/errors.ts";
import { reasoningSeal } from "../../src/core/reasoning-seal.ts";
import { isSealedSecret, storedSecrets } from "../../src/core/stored-secrets.ts";

const key = new Uint8Array(32).fill(7);
const otherKey = new Uint8Array(32).fill(8);

describe("stored secrets", () => {
  const secrets = storedSecrets(key);

  test.each(["totp", "webhook"] as const)("a %s secret is kept encrypted and opens to itself", (kind) => {
    const sealed = secrets.seal(kind, "JBSWY3DPEHPK3PXP");
    expect(isSealedSecret(sealed)).toBe(true);
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(secrets.open(kind, sealed)).toBe("JBSWY3DPEHPK3PXP");
    // A random nonce: the same secret never seals to the same value twice.
    expect(secrets.seal(kind, "JBSWY3DPEHPK3PXP")).not.toBe(sealed);
  });

  test("a value still in clear (a database from before) is read as is", () => {
    expect(secrets.open("webhook", "whsec_00ff")).toBe("whsec_00ff");
  });

  test("a value sealed for one kind, for the reasoning seal or under another key does not open", () => {
    const webhook = secrets.seal("webhook", "whsec_00ff");
    expect(() => secrets.open("totp", webhook)).toThrow(AppError);
    expect(() => storedSecrets(otherKey).open("webhook", webhook)).toThrow("SECRET_KEY");
    // A 503 that says what to do, never a 500.
    try {
      storedSecrets(otherKey).open("totp", secrets.seal("totp", "JBSWY3DPEHPK3PXP"));
    } catch (error) {
      expect([(error as AppError).kind, (error as Error).message]).toEqual(["unavailable", expect.stringContaining("two-factor secret does not open")]);
    }
    expect(reasoningSeal(key).open(webhook)).toBeNull();
  });

  test("without a key, a new secret is refused naming SECRET_KEY, and an encrypted one cannot be read", () => {
    const keyless = storedSecrets(null);
    expect(keyless.keyed).toBe(false);
    expect(() => keyless.seal("totp", "JBSWY3DPEHPK3PXP")).toThrow("SECRET_KEY");
    expect(() => keyless.open("totp", secrets.seal("totp", "JBSWY3DPEHPK3PXP"))).toThrow("SECRET_KEY");
    expect(keyless.open("totp", "JBSWY3DPEHPK3PXP")).toBe("JBSWY3DPEHPK3PXP");
  });
});
