import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ident, parameterType, sql, SqlValueError, statement } from '../../../services/platform/store/clickhouse/sql.ts';

// What the server does with these statements (values round-tripping through parameters, types
// compared with narrower columns) is tested on the 25.8 engine in
// test/integration/clickhouse-front.test.ts; this file pins the text and types the builder makes.

describe('sql template: values become typed parameters', () => {
  it('writes a placeholder per value and identifiers as they are', () => {
    const table = ident('db_1', 'jobs');
    const attack = "'; DROP TABLE jobs; --";
    expect(sql`SELECT * FROM ${table} WHERE id = ${attack} AND n > ${-1} AND s IN ${['a', 'b']}`).toEqual({
      query: 'SELECT * FROM db_1.jobs WHERE id = {p0:String} AND n > {p1:Int64} AND s IN {p2:Array(String)}',
      params: { p0: attack, p1: -1, p2: ['a', 'b'] },
    });
  });

  it('never puts a value into the text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }).filter((s) => s.isWellFormed() && s.length > 0), (input) => {
        const built = sql`SELECT ${input}`;
        expect(built.query).toBe('SELECT {p0:String}');
        expect(built.params).toEqual({ p0: input });
      }),
      { numRuns: 300 },
    );
  });

  it('takes trusted text without values as a statement', () => {
    expect(statement('CREATE DATABASE IF NOT EXISTS x')).toEqual({ query: 'CREATE DATABASE IF NOT EXISTS x', params: {} });
  });
});

describe('parameter types', () => {
  it('follow the JavaScript value', () => {
    expect(parameterType('x')).toBe('String');
    expect(parameterType('')).toBe('String');
    expect(parameterType(42)).toBe('Int64');
    expect(parameterType(-3)).toBe('Int64');
    expect(parameterType(1.5)).toBe('Float64');
    expect(parameterType(9007199254740993n)).toBe('Int64');
    expect(parameterType(true)).toBe('Bool');
    expect(parameterType(['a'])).toBe('Array(String)');
    expect(parameterType([1, 2])).toBe('Array(Int64)');
    expect(parameterType([])).toBe('Array(String)');
  });

  it('refuse what has no safe type', () => {
    for (const bad of [NaN, Infinity, -Infinity, 2 ** 53 + 2, 'abc\ud800', '\udc00']) {
      expect(() => parameterType(bad)).toThrow(SqlValueError);
    }
    for (const bad of [undefined, null, {}, new Date(0), Symbol('s'), () => 1, new Map(), ['a', 1]]) {
      expect(() => parameterType(bad as never)).toThrow(SqlValueError);
    }
    expect(() => sql`SELECT ${undefined as never}`).toThrow(SqlValueError);
  });
});

describe('identifiers', () => {
  it('join plain names with dots', () => {
    expect(ident('db', 'table').name).toBe('db.table');
  });

  it('refuse anything that is not a plain name', () => {
    for (const bad of ['', '1abc', 'a-b', 'a b', 'jobs; DROP TABLE x', '`x`', 'a.b', 'é']) {
      expect(() => ident(bad)).toThrow(SqlValueError);
    }
    expect(() => ident()).toThrow(SqlValueError);
  });
});
