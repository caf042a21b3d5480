import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ident, quote, quoteDay, sql, SqlQuoteError } from '../../../services/platform/store/clickhouse/sql.ts';

/**
 * A tiny reader of ClickHouse string literals, written from the server's escaping rules: inside
 * '...' a backslash starts an escape and a bare quote ends the literal. If quote() output always
 * reads back as exactly one literal equal to the input, no input can break out of it.
 */
function readLiteral(text: string): { value: string; rest: string } {
  expect(text[0]).toBe("'");
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i];
    if (char === "'") return { value, rest: text.slice(i + 1) };
    if (char === '\\') {
      const next = text[i + 1];
      if (next === 'x') {
        value += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
        i += 3;
      } else {
        value += next;
        i += 1;
      }
    } else {
      value += char;
    }
  }
  throw new Error('unterminated literal');
}

describe('quote: strings', () => {
  const attacks = [
    "'; DROP TABLE jobs; --",
    "x' OR '1'='1",
    "\\'; DROP TABLE jobs; --",
    'back\\slash at the end\\',
    "\\",
    "'",
    "''",
    'NUL\u0000inside',
    'new\nline\r\ttab',
    '\u007f delete char',
    'Søren Ærø Åbenrå é 😀 漢字',
    '\u2028\u2029 line separators',
    '`backticks` and "double quotes"',
    '/* comment */ -- comment',
    '\\x27 looks like an escape',
  ];

  it.each(attacks)('reads back as exactly one literal: %j', (input) => {
    const quoted = quote(input);
    const { value, rest } = readLiteral(quoted);
    expect(value).toBe(input);
    expect(rest).toBe('');
  });

  it('escapes quote, backslash and control characters, leaves unicode as is', () => {
    expect(quote("it's")).toBe("'it\\'s'");
    expect(quote('a\\b')).toBe("'a\\\\b'");
    expect(quote('a\u0000b\nc')).toBe("'a\\x00b\\x0ac'");
    expect(quote('Ærø 😀')).toBe("'Ærø 😀'");
  });

  it('never leaves a raw quote, NUL or newline in the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (input) => {
        const quoted = quote(input);
        const inner = quoted.slice(1, -1);
        expect(inner.replace(/\\\\|\\'/g, '')).not.toMatch(/['\u0000\n\r]/);
        expect(readLiteral(quoted)).toEqual({ value: input, rest: '' });
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a lone surrogate, which has no UTF-8 form', () => {
    expect(() => quote('abc\ud800')).toThrow(SqlQuoteError);
    expect(() => quote('\udc00')).toThrow(SqlQuoteError);
  });
});

describe('quote: other values', () => {
  it('numbers: finite and safe only; negatives in parentheses', () => {
    expect(quote(42)).toBe('42');
    expect(quote(1.5)).toBe('1.5');
    expect(quote(-3)).toBe('(-3)');
    expect(quote(0)).toBe('0');
    expect(quote(9007199254740993n)).toBe('9007199254740993');
    for (const bad of [NaN, Infinity, -Infinity, 2 ** 53 + 2]) {
      expect(() => quote(bad)).toThrow(SqlQuoteError);
    }
  });

  it('booleans, null, dates, days and arrays', () => {
    expect(quote(true)).toBe('1');
    expect(quote(false)).toBe('0');
    expect(quote(null)).toBe('NULL');
    expect(quote(new Date('2026-03-04T05:06:07Z'))).toBe("'2026-03-04 05:06:07'");
    expect(() => quote(new Date('nope'))).toThrow(SqlQuoteError);
    expect(() => quote(new Date('2026-03-04T05:06:07.250Z'))).toThrow(SqlQuoteError);
    expect(quoteDay('2026-03-04')).toBe("toDate('2026-03-04')");
    expect(() => quoteDay("2026-03-04'); DROP TABLE x; --")).toThrow(SqlQuoteError);
    expect(() => quoteDay('2026-13-45')).toThrow(SqlQuoteError);
    expect(quote(['a', "b'", 1, null, [2]])).toBe("['a', 'b\\'', 1, NULL, [2]]");
  });

  it('rejects what it cannot quote safely', () => {
    for (const bad of [undefined, {}, { toString: () => "'" }, Symbol('s'), () => 1, new Map()]) {
      expect(() => quote(bad as never)).toThrow(SqlQuoteError);
    }
    expect(() => quote([1, undefined] as never)).toThrow(SqlQuoteError);
  });
});

describe('sql template and identifiers', () => {
  it('quotes every value and writes identifiers as they are', () => {
    const table = ident('db_1', 'jobs');
    expect(sql`SELECT * FROM ${table} WHERE id = ${"'; DROP TABLE jobs; --"} AND n > ${-1}`).toBe(
      "SELECT * FROM db_1.jobs WHERE id = '\\'; DROP TABLE jobs; --' AND n > (-1)",
    );
  });

  it('refuses identifiers that are not plain names', () => {
    for (const bad of ['', '1abc', 'a-b', 'a b', 'jobs; DROP TABLE x', '`x`', 'a.b', 'é']) {
      expect(() => ident(bad)).toThrow(SqlQuoteError);
    }
    expect(() => ident()).toThrow(SqlQuoteError);
  });
});
