/**
 * The one way values reach ClickHouse SQL text. ClickHouse 18.16 has no query parameters, so every
 * value is written as a literal by `quote`, and queries are built with the `sql` tagged template,
 * which quotes every interpolated value unless it is an `Identifier` made by `ident` from a name
 * the code itself chose (identifiers never come from input).
 *
 * What it quotes: strings (well-formed UTF-16 only), finite numbers (integers within the safe
 * range), bigints, booleans (1/0), null (NULL), Dates (UTC 'YYYY-MM-DD hh:mm:ss', whole seconds)
 * and arrays of these. Anything else throws SqlQuoteError rather than guess: undefined, NaN,
 * Infinity, unsafe integers, invalid or fractional-second Dates, lone surrogates, objects.
 */
export class SqlQuoteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlQuoteError';
  }
}

export type SqlValue = string | number | bigint | boolean | null | Date | readonly SqlValue[];

/** A name chosen by code (table, database, column), safe to write into SQL unquoted. */
export class Identifier {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** `ident('db', 'table')` → db.table. Each part must be a plain identifier. */
export function ident(...parts: string[]): Identifier {
  if (parts.length === 0) throw new SqlQuoteError('identifier needs at least one part');
  for (const part of parts) {
    if (!IDENTIFIER.test(part)) throw new SqlQuoteError(`not a plain identifier: ${JSON.stringify(part)}`);
  }
  return new Identifier(parts.join('.'));
}

/** Writes `value` as a ClickHouse literal (see the module comment for what is accepted). */
export function quote(value: SqlValue): string {
  if (value === null) return 'NULL';
  switch (typeof value) {
    case 'string':
      return quoteString(value);
    case 'number':
      return quoteNumber(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? '1' : '0';
    case 'object':
      if (value instanceof Date) return quoteDate(value);
      if (Array.isArray(value)) return `[${value.map((item) => quote(item)).join(', ')}]`;
      break;
  }
  throw new SqlQuoteError(`cannot quote a value of type ${describe(value)}`);
}

/**
 * Builds SQL text: every `${value}` is quoted, every `${ident(...)}` is written as is.
 * sql`SELECT * FROM ${table} WHERE id = ${id}`
 */
export function sql(strings: TemplateStringsArray, ...values: Array<SqlValue | Identifier>): string {
  let text = strings[0];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    text += (value instanceof Identifier ? value.name : quote(value)) + strings[i + 1];
  }
  return text;
}

/** A calendar day 'YYYY-MM-DD' as a ClickHouse Date literal (checked, so it cannot fail late). */
export function quoteDay(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
    throw new SqlQuoteError(`not a calendar day: ${JSON.stringify(day)}`);
  }
  return `toDate('${day}')`;
}

function quoteString(value: string): string {
  if (!value.isWellFormed()) throw new SqlQuoteError('string holds a lone surrogate (not valid UTF-8)');
  let out = "'";
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === "'") out += "\\'";
    else if (char === '\\') out += '\\\\';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}'`;
}

function quoteNumber(value: number): string {
  if (!Number.isFinite(value)) throw new SqlQuoteError(`cannot quote ${value}`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new SqlQuoteError(`integer ${value} is outside the safe range; pass a bigint`);
  }
  // Parenthesised when negative so that `a -${n}` can never become a comment (`--`).
  return value < 0 || Object.is(value, -0) ? `(${String(value)})` : String(value);
}

function quoteDate(value: Date): string {
  const ms = value.getTime();
  if (Number.isNaN(ms)) throw new SqlQuoteError('cannot quote an invalid Date');
  if (ms % 1000 !== 0) throw new SqlQuoteError('DateTime has whole seconds; round the Date first');
  return `'${value.toISOString().slice(0, 19).replace('T', ' ')}'`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'object') return value?.constructor?.name ?? 'object';
  return typeof value;
}
