/**
 * The one way values reach ClickHouse SQL: as typed query parameters. The `sql` tagged template
 * writes a placeholder `{p0:Type}` for every interpolated value and hands the value itself to the
 * server beside the text (`param_p0=…` on the HTTP interface), so no value is ever parsed as SQL.
 * An `Identifier` made by `ident` from a name the code itself chose (identifiers never come from
 * input) is written into the text as is.
 *
 * Types follow the JavaScript value: string → String, safe integer → Int64, other finite number →
 * Float64, bigint → Int64, boolean → Bool, array → Array of its elements' type (an empty array is
 * Array(String); mixed arrays are refused). ClickHouse compares them with narrower columns (UInt32,
 * Enum8 against its names) as it would a literal. Anything else throws SqlValueError rather than
 * guess: undefined, null, NaN, Infinity, unsafe integers, lone surrogates (not valid UTF-8),
 * objects and Dates (store timestamps as text and *_ms numbers; see the migrations).
 */
export class SqlValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlValueError';
  }
}

export type SqlScalar = string | number | bigint | boolean;
export type SqlValue = SqlScalar | readonly SqlScalar[];

/** SQL text with its typed parameters, as @clickhouse/client takes them (`query_params`). */
export interface Statement {
  readonly query: string;
  readonly params: Readonly<Record<string, SqlValue>>;
}

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
  if (parts.length === 0) throw new SqlValueError('identifier needs at least one part');
  for (const part of parts) {
    if (!IDENTIFIER.test(part)) throw new SqlValueError(`not a plain identifier: ${JSON.stringify(part)}`);
  }
  return new Identifier(parts.join('.'));
}

/** A placeholder as `sql` writes it: `{pN:` then the type. */
const PLACEHOLDER = /\{p(\d+):/g;

/**
 * Statements this module built: only these are written into another statement as SQL. Any other
 * object (a parsed JSON value that happens to have `query`) is a value and is refused as one.
 */
const built = new WeakSet<Statement>();

function made(statement: Statement): Statement {
  built.add(statement);
  return statement;
}

function isStatement(value: SqlValue | Identifier | Statement): value is Statement {
  return typeof value === 'object' && value !== null && built.has(value as Statement);
}

/**
 * Builds a statement: every `${value}` becomes a typed parameter, every `${ident(...)}` is written
 * as is. sql`SELECT * FROM ${table} WHERE id = ${id}` → `… WHERE id = {p0:String}`, { p0: id }.
 * A `${statement}` made by `sql` is written in place, its parameters renumbered after the ones
 * before it (a subquery written once and used for several tables).
 */
export function sql(strings: TemplateStringsArray, ...values: Array<SqlValue | Identifier | Statement>): Statement {
  let query = strings[0];
  const params: Record<string, SqlValue> = {};
  let next = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value instanceof Identifier) {
      query += value.name;
    } else if (isStatement(value)) {
      const offset = next;
      query += value.query.replace(PLACEHOLDER, (_match, n: string) => `{p${offset + Number(n)}:`);
      for (const [name, param] of Object.entries(value.params)) {
        const renamed = offset + Number(name.slice(1));
        params[`p${renamed}`] = param;
        next = Math.max(next, renamed + 1);
      }
    } else {
      const name = `p${next++}`;
      query += `{${name}:${parameterType(value)}}`;
      params[name] = value;
    }
    query += strings[i + 1];
  }
  return made({ query, params });
}

/** Text written by the code itself with no values in it (DDL from the migration files). */
export function statement(query: string): Statement {
  return made({ query, params: {} });
}

/** The ClickHouse type of a parameter (see the module comment), checking the value on the way. */
export function parameterType(value: SqlValue): string {
  if (Array.isArray(value)) {
    const types = new Set((value as readonly SqlScalar[]).map(scalarType));
    if (types.size > 1) throw new SqlValueError(`array mixes ${[...types].join(' and ')}`);
    return `Array(${[...types][0] ?? 'String'})`;
  }
  return scalarType(value as SqlScalar);
}

function scalarType(value: SqlScalar): string {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw new SqlValueError('string holds a lone surrogate (not valid UTF-8)');
      return 'String';
    case 'number':
      if (!Number.isFinite(value)) throw new SqlValueError(`cannot pass ${value}`);
      if (!Number.isInteger(value)) return 'Float64';
      if (!Number.isSafeInteger(value)) throw new SqlValueError(`integer ${value} is outside the safe range; pass a bigint`);
      return 'Int64';
    case 'bigint':
      return 'Int64';
    case 'boolean':
      return 'Bool';
    default:
      break; // not a SqlScalar at run time: refused below
  }
  throw new SqlValueError(`cannot pass a value of type ${describe(value)}`);
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'object') return value?.constructor?.name ?? 'object';
  return typeof value;
}
