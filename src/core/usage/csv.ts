const NEEDS_QUOTES = /[",\r\n]/;

/** One RFC 4180 field: quoted when it holds a comma, a double quote or a line break, quotes doubled. */
export function csvField(value: string | number): string {
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One RFC 4180 record, CRLF-terminated. */
export const csvRecord = (fields: readonly (string | number)[]): string => `${fields.map(csvField).join(",")}\r\n`;

// A spreadsheet runs a cell that starts with one of these as a formula (OWASP's "CSV Injection").
const FORMULA_START = /^[=+\-@\t\r]/;

/** Text someone else chose (a key's name, an e-mail) as a cell a spreadsheet shows as text: a leading `'` defuses a formula. */
export const csvText = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);
