/**
 * A spreadsheet cell as the text a person sees in it, for cells that come as values (exceljs) rather
 * than formatted text: numbers without binary float noise (0.1 + 0.2 shows 0.3), dates as ISO
 * `YYYY-MM-DD` (with the time when it is not midnight), booleans as TRUE/FALSE, formulas as their
 * cached result, rich text and hyperlinks as their text, errors as `#N/A` etc. Empty → null.
 * Number formats (thousands separators, leading zeros of a "00000" format) are not applied: the
 * value is what the service checks, and postal codes, phone numbers and CVR numbers read right.
 */
export function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(Number(value.toPrecision(15))) : null;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return dateText(value);
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) return emptyToNull(v.richText.map((r: { text?: unknown }) => String(r.text ?? '')).join(''));
    if ('result' in v) return cellText(v.result);
    if ('formula' in v || 'sharedFormula' in v) return null; // a formula without a cached result shows nothing
    if (typeof v.text === 'string' || typeof v.text === 'object') return cellText(v.text);
    if (typeof v.error === 'string') return v.error;
  }
  return emptyToNull(String(value));
}

function emptyToNull(text: string): string | null {
  return text === '' ? null : text;
}

function dateText(date: Date): string | null {
  if (Number.isNaN(date.getTime())) return null;
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}
