// E-mails that would show as another account's: refused when an account is made, so that
// `alice\u200b@example.com` (a zero-width space) or `аlice@example.com` (a Cyrillic а) cannot
// pass for alice@example.com in the operator's console, an audit line or an e-mail. Looking an
// address up (sign-in, forgot, the CLI's `--email` of an existing account) does not refuse
// them: such an address simply matches no account but its own.

// Format characters (zero-width space and joiners, bidi controls, the BOM, the soft hyphen),
// other controls, private-use, lone surrogates and unassigned code points, and whatever Unicode
// says renders as nothing (Hangul fillers, variation selectors, the combining grapheme joiner).
const INVISIBLE = /[\p{C}\p{Default_Ignorable_Code_Point}]/u;

// Scripts told apart; a letter of none of them counts as "other". Common and Inherited
// characters (digits, `.`, `+`, `-`, combining accents) belong to no script and mix freely.
const SCRIPTS = [
  "Latin", "Greek", "Cyrillic", "Armenian", "Georgian", "Hebrew", "Arabic", "Syriac", "Thaana", "Devanagari",
  "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao",
  "Tibetan", "Myanmar", "Khmer", "Mongolian", "Ethiopic", "Cherokee", "Han", "Hiragana", "Katakana", "Bopomofo", "Hangul",
].map((name) => ({ name, pattern: new RegExp(`\\p{Script=${name}}`, "u") }));
const SCRIPTLESS = /[\p{Script=Common}\p{Script=Inherited}]/u;

// Unicode's "highly restrictive" mixes (UTS #39, 5.2): the ways East Asian writing combines
// scripts. Any other pair of scripts in one part of an address is refused.
const ALLOWED_MIXES = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];

function scriptsOf(text: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of text) {
    if (SCRIPTLESS.test(char)) continue;
    scripts.add(SCRIPTS.find((script) => script.pattern.test(char))?.name ?? "other");
  }
  return scripts;
}

function mixesScripts(part: string): boolean {
  const scripts = scriptsOf(part);
  return scripts.size > 1 && !ALLOWED_MIXES.some((mix) => [...scripts].every((script) => mix.has(script)));
}

/**
 * Why `email` (already trimmed and lower-cased) could pass for another address, or null: an
 * invisible character, a decomposed character, a compatibility form (fullwidth or mathematical
 * letters, ligatures: the address differs from its NFKC form), or a local part or domain label
 * that mixes scripts.
 */
export function lookAlikeProblem(email: string): string | null {
  if (INVISIBLE.test(email)) return "email must not contain invisible or formatting characters";
  // é typed as e and a combining accent looks like é: one spelling per character, the composed one.
  if (email.normalize("NFC") !== email) return "email must use composed characters (Unicode NFC)";
  if (email.normalize("NFKC") !== email) return "email must not contain compatibility characters (such as fullwidth letters)";
  const at = email.lastIndexOf("@");
  const parts = [email.slice(0, at), ...email.slice(at + 1).split(".")];
  if (parts.some(mixesScripts)) return "email must not mix scripts (such as Latin and Cyrillic) in one part";
  return null;
}
