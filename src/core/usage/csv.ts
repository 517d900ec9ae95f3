const NEEDS_QUOTES = /[",\r\n]/;

/** One RFC 4180 field: quoted when it holds a comma, a double quote or a line break, quotes doubled. */
export function csvField(value: string | number): string {
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One RFC 4180 record, CRLF-terminated. */
export const csvRecord = (fields: readonly (string | number)[]): string => `${fields.map(csvField).join(",")}\r\n`;
