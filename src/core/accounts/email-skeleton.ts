import { domainToUnicode } from "node:url";
import unhomoglyph from "unhomoglyph";

// One account per address as a person reads it: `alıce@` (dotless ı), `ᴀlice@` (small capital),
// `ɑlice@` (Latin alpha), `alice+tag@` and `alice@xn--…` (a punycode look-alike of the domain)
// all read as alice@, so each has alice@'s key, and sign-up answers as for a taken address.
// The look-alike rules (look-alike.ts) refuse what they can name; this catches what stays
// within one script, which they cannot see.

// Latin small capitals that Unicode's confusables.txt does not map (ᴀ U+1D00 is not in it), to
// the letters they pass for. Applied before the confusables mapping, so that they then go
// wherever their letter goes (ᴍ to m, then to rn).
const SMALL_CAPITALS: Record<string, string> = {
  "\u1d00": "a", "\u0299": "b", "\u1d04": "c", "\u1d05": "d", "\u1d07": "e", "\ua730": "f", "\u0262": "g",
  "\u029c": "h", "\u026a": "i", "\u1d0a": "j", "\u1d0b": "k", "\u029f": "l", "\u1d0d": "m", "\u0274": "n",
  "\u1d0f": "o", "\u1d18": "p", "\ua7af": "q", "\u0280": "r", "\ua731": "s", "\u1d1b": "t", "\u1d1c": "u",
  "\u1d20": "v", "\u1d21": "w", "\u028f": "y", "\u1d22": "z",
};
const SMALL_CAPITAL = new RegExp(`[${Object.keys(SMALL_CAPITALS).join("")}]`, "gu");

/**
 * The UTS #39 skeleton of `text` (NFD, the confusables.txt mapping, NFD), the Latin small
 * capitals mapped too: two strings a reader could take for each other have the same one.
 */
export function skeleton(text: string): string {
  const decomposed = text.normalize("NFD").replace(SMALL_CAPITAL, (char) => SMALL_CAPITALS[char]!);
  return unhomoglyph(decomposed).normalize("NFD");
}

const GMAIL_DOMAINS = ["gmail.com", "googlemail.com"].map(skeleton);

function keyParts(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf("@");
  const domain = email.slice(at + 1);
  // A punycode label (`xn--…`) shows as its Unicode; a malformed one decodes to "" and is kept as written.
  const shown = domainToUnicode(domain) || domain;
  // alice+tag@ reaches alice@'s inbox at nearly every provider: it is alice@ with a label.
  return { local: skeleton(email.slice(0, at).split("+")[0]!), domain: skeleton(shown) };
}

/**
 * The key that one account per address is kept by (`accounts.email_skeleton`): the skeleton of
 * the local part without its `+tag`, `@`, the skeleton of the domain as shown (punycode decoded).
 * `email` is already normalized (trimmed and lower-cased).
 */
export function emailSkeleton(email: string): string {
  const { local, domain } = keyParts(email);
  return `${local}@${domain}`;
}

/**
 * The key the free credits go once per (`free_credit_claims.email_skeleton`): `emailSkeleton`,
 * and for Gmail, which ignores dots and reads googlemail.com as gmail.com, without dots under
 * gmail.com's key.
 */
export function freeCreditSkeleton(email: string): string {
  const { local, domain } = keyParts(email);
  if (!GMAIL_DOMAINS.includes(domain)) return `${local}@${domain}`;
  return `${local.replaceAll(".", "")}@${GMAIL_DOMAINS[0]}`;
}
