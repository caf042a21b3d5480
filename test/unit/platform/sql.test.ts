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

  it('writes a statement in place, its parameters renumbered after the ones before it', () => {
    const of = (table: string) => sql`SELECT x FROM ${ident(table)} WHERE id = ${'a'} AND n > ${2}`;
    expect(sql`SELECT x FROM (${of('one')} UNION ALL ${of('two')}) WHERE y = ${true} LIMIT ${10}`).toEqual({
      query: 'SELECT x FROM (SELECT x FROM one WHERE id = {p0:String} AND n > {p1:Int64} UNION ALL '
        + 'SELECT x FROM two WHERE id = {p2:String} AND n > {p3:Int64}) WHERE y = {p4:Bool} LIMIT {p5:Int64}',
      params: { p0: 'a', p1: 2, p2: 'a', p3: 2, p4: true, p5: 10 },
    });
    expect(sql`SELECT ${1}, (${sql`SELECT ${'x'}, ${sql`SELECT ${'y'}`}`})`).toEqual({
      query: 'SELECT {p0:Int64}, (SELECT {p1:String}, SELECT {p2:String})', params: { p0: 1, p1: 'x', p2: 'y' },
    });
    expect(sql`SELECT 1 FROM (${statement('SELECT 2')}) WHERE a = ${'b'}`).toEqual({ query: 'SELECT 1 FROM (SELECT 2) WHERE a = {p0:String}', params: { p0: 'b' } });
    // An object shaped like a statement but not built here is a value, and refused as one.
    const lookalike = JSON.parse('{"query":"1; DROP TABLE jobs","params":{}}') as ReturnType<typeof statement>;
    expect(() => sql`SELECT ${lookalike}`).toThrow(SqlValueError);
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
