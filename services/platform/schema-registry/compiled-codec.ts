import type avro from 'avsc';

/**
 * Avro binary of one schema, compiled once (docs/architecture.md "The compiled codec"): a
 * writer and a reader generated from the avsc type the catalog loaded, for the hot records of the
 * pipeline (row chunks, slim results, the chunk records around them).
 *
 * The bytes are avsc's, byte for byte, for every value avsc writes (test/unit/platform/
 * compiled-codec.test.ts holds it to that over generated records), and a value avsc refuses makes
 * the writer throw too, so a caller falls back to avsc's path for its error. What is cheaper than
 * avsc: no Tap object per value and no second write when a value outgrows avsc's first buffer
 * (every chunk does); one writer buffer, grown to the largest value, shared by every codec; a
 * string under 64 characters written in one pass with its length byte reserved (avsc
 * measures its UTF-8 length first); a [null, X] union decided by `=== null` (avsc looks the
 * value's kind up in a table); records read into plain object literals.
 *
 * Schemas with types the pipeline's records do not use (maps, fixed, float, double, unions other
 * than [null, X], arrays of zero-byte items) compile to null: avsc's generic path serves them.
 */
export interface CompiledAvro {
  /**
   * Avro binary of `value`, after `reserve` bytes left for the caller (a wire-format header), as a
   * view of the shared writer buffer: valid until the next encode of any compiled codec, so the
   * caller copies or seals it at once. Throws when the value does not fit the schema.
   */
  encode(value: unknown, reserve?: number): Buffer;
  /** The value of Avro binary that is exactly one value of the schema; throws on cut or trailing bytes. */
  decode(bytes: Buffer): unknown;
}

/** Node's own UTF-8 copy and slice (what avsc uses too); @types/node does not declare them. */
interface Utf8Buffer extends Buffer {
  utf8Write(text: string, offset: number, length: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

class InvalidValueError extends Error {
  constructor() {
    super('value does not fit the schema');
    this.name = 'InvalidValueError';
  }
}

/** avsc's bound for longs (isSafeLong in avsc/lib/types.js). */
const LONG_LIMIT = 9007199254740990;

/** Where every compiled codec writes. One per process (encoding is synchronous), grown, never shrunk. */
class Writer {
  buf = Buffer.allocUnsafeSlow(1 << 16) as Utf8Buffer;
  pos = 0;

  room(bytes: number): void {
    if (this.pos + bytes > this.buf.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + bytes)) as Utf8Buffer;
      this.buf.copy(next, 0, 0, this.pos);
      this.buf = next;
    }
  }

  invalid(): Error {
    return new InvalidValueError();
  }

  long(n: unknown): void {
    if (typeof n !== 'number' || n % 1 !== 0 || n < -LONG_LIMIT || n > LONG_LIMIT) throw new InvalidValueError();
    this.varint(n);
  }

  int(n: unknown): void {
    if (typeof n !== 'number' || n !== (n | 0)) throw new InvalidValueError();
    this.varint(n);
  }

  /** Zig-zag varint, as avsc's Tap.writeLong (integer arithmetic inside ±2^30, float outside). */
  varint(n: number): void {
    this.room(10);
    const buf = this.buf;
    let pos = this.pos;
    if (n >= -1073741824 && n < 1073741824) {
      let m = n >= 0 ? n << 1 : (~n << 1) | 1;
      while (m > 0x7f) {
        buf[pos++] = (m & 0x7f) | 0x80;
        m >>>= 7;
      }
      buf[pos++] = m;
    } else {
      let f = n >= 0 ? n * 2 : -n * 2 - 1;
      while (f >= 128) {
        buf[pos++] = (f & 0x7f) | 0x80;
        f /= 128;
      }
      buf[pos++] = f & 0x7f;
    }
    this.pos = pos;
  }

  /** One byte: a union branch index or a zero (an empty array's end), already zig-zagged. */
  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  boolean(b: unknown): void {
    if (typeof b !== 'boolean') throw new InvalidValueError();
    this.room(1);
    this.buf[this.pos++] = b ? 1 : 0;
  }

  symbol(indexOf: ReadonlyMap<unknown, number>, value: unknown): void {
    const index = indexOf.get(value);
    if (index === undefined) throw new InvalidValueError();
    this.varint(index);
  }

  string(s: unknown): void {
    if (typeof s !== 'string') throw new InvalidValueError();
    const n = s.length;
    if (n < 64) {
      // Under 64 UTF-16 units: at most 189 UTF-8 bytes, so the length takes one or two bytes. The
      // bytes are written first, after one byte reserved for the length, and moved on by one when
      // they come to 64 or more: no second pass to measure them (Buffer.byteLength), which Danish
      // names and addresses (æ, ø, å) all took (docs/performance.md "Measurements"). A valid string
      // is the same bytes in avsc's loop and in Node's encoder; a lone surrogate, which the two
      // write differently, goes the general way.
      this.room(3 * n + 2);
      const buf = this.buf;
      const start = this.pos;
      let pos = start + 1;
      for (let i = 0; i < n; i++) {
        let c = s.charCodeAt(i);
        if (c < 0x80) {
          buf[pos++] = c;
        } else if (c < 0x800) {
          buf[pos++] = (c >> 6) | 0xc0;
          buf[pos++] = (c & 0x3f) | 0x80;
        } else if ((c & 0xf800) !== 0xd800) {
          buf[pos++] = (c >> 12) | 0xe0;
          buf[pos++] = ((c >> 6) & 0x3f) | 0x80;
          buf[pos++] = (c & 0x3f) | 0x80;
        } else {
          const c2 = s.charCodeAt(i + 1);
          if ((c & 0xfc00) !== 0xd800 || (c2 & 0xfc00) !== 0xdc00) {
            this.utf8(s);
            return;
          }
          c = 0x10000 + ((c & 0x03ff) << 10) + (c2 & 0x03ff);
          i++;
          buf[pos++] = (c >> 18) | 0xf0;
          buf[pos++] = ((c >> 12) & 0x3f) | 0x80;
          buf[pos++] = ((c >> 6) & 0x3f) | 0x80;
          buf[pos++] = (c & 0x3f) | 0x80;
        }
      }
      const len = pos - start - 1;
      if (len < 64) {
        buf[start] = len << 1;
      } else {
        buf.copyWithin(start + 2, start + 1, pos);
        buf[start] = ((len << 1) & 0x7f) | 0x80;
        buf[start + 1] = len >> 6;
        pos++;
      }
      this.pos = pos;
      return;
    }
    this.utf8(s);
  }

  /**
   * avsc's Tap.writeString exactly: Node's UTF-8 length, then Node's UTF-8 above 64 bytes and
   * avsc's own loop up to 64, which writes a lone surrogate as its 3-byte form where Node writes
   * U+FFFD (same length; bytes identical to avsc is the promise).
   */
  utf8(s: string): void {
    const len = Buffer.byteLength(s);
    this.varint(len);
    this.room(len);
    const buf = this.buf;
    let pos = this.pos;
    if (len > 64) {
      buf.utf8Write(s, pos, len);
      this.pos = pos + len;
      return;
    }
    for (let i = 0; i < s.length; i++) {
      let c1 = s.charCodeAt(i);
      let c2: number;
      if (c1 < 0x80) {
        buf[pos++] = c1;
      } else if (c1 < 0x800) {
        buf[pos++] = (c1 >> 6) | 0xc0;
        buf[pos++] = (c1 & 0x3f) | 0x80;
      } else if ((c1 & 0xfc00) === 0xd800 && ((c2 = s.charCodeAt(i + 1)) & 0xfc00) === 0xdc00) {
        c1 = 0x10000 + ((c1 & 0x03ff) << 10) + (c2 & 0x03ff);
        i++;
        buf[pos++] = (c1 >> 18) | 0xf0;
        buf[pos++] = ((c1 >> 12) & 0x3f) | 0x80;
        buf[pos++] = ((c1 >> 6) & 0x3f) | 0x80;
        buf[pos++] = (c1 & 0x3f) | 0x80;
      } else {
        buf[pos++] = (c1 >> 12) | 0xe0;
        buf[pos++] = ((c1 >> 6) & 0x3f) | 0x80;
        buf[pos++] = (c1 & 0x3f) | 0x80;
      }
    }
    this.pos = pos;
  }

  bytes(b: unknown): void {
    if (!Buffer.isBuffer(b)) throw new InvalidValueError();
    this.varint(b.length);
    this.raw(b);
  }

  raw(b: Buffer): void {
    this.room(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }
}

class TruncatedError extends Error {
  constructor(what: string) {
    super(`Avro binary ${what}`);
    this.name = 'TruncatedError';
  }
}

/**
 * Short strings read before, by their bytes: postal codes, towns, streets, floors and doors recur
 * in every chunk, and comparing a few bytes in the JIT is cheaper than Node's call into C++ that
 * makes a new string (utf8Slice). A direct-mapped table: a slot holds the last string whose bytes
 * hashed to it; a miss costs the hash and the copy of at most SHORT_STRING bytes.
 */
const SHORT_STRING = 16;
const SLOTS = 4096;
const slotText: string[] = new Array<string>(SLOTS).fill('');
const slotLength = new Int8Array(SLOTS).fill(-1);
const slotBytes = new Uint8Array(SLOTS * SHORT_STRING);

function shortString(buf: Utf8Buffer, start: number, end: number): string {
  const len = end - start;
  let h = len;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  const slot = (h ^ (h >>> 15)) & (SLOTS - 1);
  const at = slot * SHORT_STRING;
  if (slotLength[slot] === len) {
    let i = 0;
    while (i < len && slotBytes[at + i] === buf[start + i]) i++;
    if (i === len) return slotText[slot];
  }
  const text = buf.utf8Slice(start, end);
  slotLength[slot] = len;
  for (let i = 0; i < len; i++) slotBytes[at + i] = buf[start + i];
  slotText[slot] = text;
  return text;
}

/** Reads one value; bounds are checked where a length is read and once at the end. */
class Reader {
  pos = 0;
  readonly buf: Utf8Buffer;
  readonly end: number;
  constructor(buf: Utf8Buffer, end: number) {
    this.buf = buf;
    this.end = end;
  }

  /** avsc's Tap.readLong. Past the end a byte reads as undefined (0 here); the end check catches it. */
  long(): number {
    const buf = this.buf;
    let n = 0;
    let k = 0;
    let b: number;
    let h: number;
    do {
      b = buf[this.pos++];
      h = b & 0x80;
      n |= (b & 0x7f) << k;
      k += 7;
    } while (h && k < 28);
    if (h) {
      let f = n;
      let fk = 268435456;
      do {
        b = buf[this.pos++];
        f += (b & 0x7f) * fk;
        fk *= 128;
      } while (b & 0x80);
      return (f % 2 ? -(f + 1) : f) / 2;
    }
    return (n >> 1) ^ -(n & 1);
  }

  boolean(): boolean {
    return !!this.buf[this.pos++];
  }

  string(): string {
    const start = this.skipSized('a string');
    const end = this.pos;
    return end - start <= SHORT_STRING ? shortString(this.buf, start, end) : this.buf.utf8Slice(start, end);
  }

  /** A view of the input (avsc copies; the value is the same). */
  bytes(): Buffer {
    const start = this.skipSized('bytes');
    return this.buf.subarray(start, this.pos);
  }

  /** Steps over a length-prefixed value (string or bytes) and returns its start; it ends at `pos`. */
  private skipSized(what: string): number {
    const len = this.long();
    const start = this.pos;
    const end = start + len;
    if (len < 0 || end > this.end) throw new TruncatedError(`cut inside ${what}`);
    this.pos = end;
    return start;
  }

  symbol(symbols: readonly string[]): string {
    const symbol = symbols[this.long()];
    if (symbol === undefined) throw new TruncatedError('names no symbol of its enum');
    return symbol;
  }

  branch(count: number): number {
    const index = this.long();
    if (!(index >= 0 && index < count)) throw new TruncatedError('names no branch of its union');
    return index;
  }

  /** A block's item count, which cannot exceed the bytes left (every item takes at least one). */
  count(n: number): number {
    if (n > this.end - this.pos) throw new TruncatedError('holds more items than bytes');
    return n;
  }
}

const writer = new Writer();

class UnsupportedTypeError extends Error {}

/** Generates the writer and reader source for one schema; named records become functions of their own. */
class Generator {
  readonly constants: unknown[] = [];
  readonly functions: string[] = [];
  private readonly records = new Map<avro.Type, number>();
  private next = 0;

  constant(value: unknown): string {
    this.constants.push(value);
    return `c${this.constants.length - 1}`;
  }

  fresh(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  write(type: avro.Type, value: string): string {
    switch (type.typeName) {
      case 'null':
        return `if (${value} !== null) throw w.invalid();`;
      case 'boolean':
        return `w.boolean(${value});`;
      case 'int':
        return `w.int(${value});`;
      case 'long':
        return `w.long(${value});`;
      case 'string':
        return `w.string(${value});`;
      case 'bytes':
        return `w.bytes(${value});`;
      case 'enum': {
        const symbols = (type as avro.types.EnumType).symbols;
        return `w.symbol(${this.constant(new Map(symbols.map((s, i) => [s, i])))}, ${value});`;
      }
      case 'array': {
        const items = (type as avro.types.ArrayType).itemsType;
        if (minBytes(items) === 0) throw new UnsupportedTypeError();
        const [a, n, i] = [this.fresh('a'), this.fresh('n'), this.fresh('i')];
        // As avsc: one block of all items (none when empty), then the zero count.
        return `{ const ${a} = ${value}; if (!Array.isArray(${a})) throw w.invalid(); const ${n} = ${a}.length;
          if (${n} !== 0) { w.varint(${n}); for (let ${i} = 0; ${i} < ${n}; ${i}++) { ${this.write(items, `${a}[${i}]`)} } }
          w.byte(0); }`;
      }
      case 'union:unwrapped': {
        const { nullAt, other } = nullable(type);
        const u = this.fresh('u');
        // avsc picks a branch by the value's kind: a record branch takes a plain object only.
        const kind = other.typeName === 'record'
          ? `if (Array.isArray(${u}) || Buffer.isBuffer(${u})) throw w.invalid();`
          : '';
        return `{ const ${u} = ${value}; if (${u} === null) w.byte(${nullAt * 2});
          else { ${kind} w.byte(${(1 - nullAt) * 2}); ${this.write(other, u)} } }`;
      }
      case 'record':
        return `w${this.record(type as avro.types.RecordType)}(w, ${value});`;
      default:
        throw new UnsupportedTypeError();
    }
  }

  read(type: avro.Type): string {
    switch (type.typeName) {
      case 'null':
        return 'null';
      case 'boolean':
        return 'r.boolean()';
      case 'int':
      case 'long':
        return 'r.long()';
      case 'string':
        return 'r.string()';
      case 'bytes':
        return 'r.bytes()';
      case 'enum':
        return `r.symbol(${this.constant((type as avro.types.EnumType).symbols)})`;
      case 'array': {
        const items = (type as avro.types.ArrayType).itemsType;
        if (minBytes(items) === 0) throw new UnsupportedTypeError();
        const name = this.fresh('ra');
        // As avsc's ArrayType._read: blocks until a zero count; a negative count carries a byte size.
        this.functions.push(`function ${name}(r) { let out = null; let at = 0;
          for (let n = r.long(); n !== 0; n = r.long()) {
            if (n < 0) { n = -n; r.long(); }
            r.count(n);
            if (out === null) out = new Array(n); 
            for (let k = 0; k < n; k++) out[at++] = ${this.read(items)};
          }
          return out === null ? [] : out; }`);
        return `${name}(r)`;
      }
      case 'union:unwrapped': {
        const { nullAt, other } = nullable(type);
        return `(r.branch(2) === ${nullAt} ? null : ${this.read(other)})`;
      }
      case 'record':
        return `r${this.record(type as avro.types.RecordType)}(r)`;
      default:
        throw new UnsupportedTypeError();
    }
  }

  /** The number of the record's writer and reader functions, generated on first use (named types recur). */
  private record(type: avro.types.RecordType): number {
    let id = this.records.get(type);
    if (id !== undefined) return id;
    id = this.next++;
    this.records.set(type, id);
    const writes = type.fields.map((field, i) => {
      const value = `v[${JSON.stringify(field.name)}]`;
      const fallback = field.defaultValue();
      if (fallback === undefined) return this.write(field.type, value);
      // As avsc: a field left undefined is written as its default.
      const f = `f${i}`;
      return `{ const ${f} = ${value}; if (${f} === undefined) w.raw(${this.constant(field.type.toBuffer(fallback))}); else { ${this.write(field.type, f)} } }`;
    });
    const reads = type.fields.map((field) => `${JSON.stringify(field.name)}: ${this.read(field.type)}`);
    // As avsc's check of a record (isValid): anything but an object does not fit (avsc's own writer
    // would write a string's missing fields as their defaults).
    this.functions.push(`function w${id}(w, v) { if (v === null || typeof v !== 'object') throw w.invalid();
      ${writes.join('\n')} }`);
    this.functions.push(`function r${id}(r) { return { ${reads.join(',\n')} }; }`);
    return id;
  }
}

function nullable(type: avro.Type): { nullAt: number; other: avro.Type } {
  const types = (type as avro.types.UnwrappedUnionType).types;
  if (types.length !== 2) throw new UnsupportedTypeError();
  const nullAt = types.findIndex((t) => t.typeName === 'null');
  if (nullAt === -1) throw new UnsupportedTypeError();
  return { nullAt, other: types[1 - nullAt] };
}

/** The fewest bytes a value of the type takes (arrays of zero-byte items are not compiled: a count could not be bounded). */
function minBytes(type: avro.Type): number {
  if (type.typeName === 'null') return 0;
  if (type.typeName === 'record') return (type as avro.types.RecordType).fields.reduce((n, f) => n + minBytes(f.type), 0);
  return 1;
}

const compiled = new WeakMap<avro.Type, CompiledAvro | null>();

/** The compiled codec of `type` (made once per type object), or null when it has a type the generator leaves to avsc. */
export function compileAvro(type: avro.Type): CompiledAvro | null {
  let codec = compiled.get(type);
  if (codec === undefined) {
    codec = generate(type);
    compiled.set(type, codec);
  }
  return codec;
}

function generate(type: avro.Type): CompiledAvro | null {
  const generator = new Generator();
  let writeRoot: string;
  let readRoot: string;
  try {
    writeRoot = generator.write(type, 'v');
    readRoot = generator.read(type);
  } catch (error) {
    if (error instanceof UnsupportedTypeError) return null;
    throw error;
  }
  const names = generator.constants.map((_, i) => `c${i}`);
  const source = `${generator.functions.join('\n')}
    return { write(w, v) { ${writeRoot} }, read(r) { return ${readRoot}; } };`;
  // oxlint-disable-next-line typescript/no-implied-eval -- generated once per schema from the catalog's own types (names quoted by JSON.stringify), never from message data; avsc compiles its records the same way
  const made = new Function(...names, source)(...generator.constants) as {
    write(w: Writer, v: unknown): void;
    read(r: Reader): unknown;
  };
  return {
    encode(value, reserve = 0) {
      writer.pos = 0;
      writer.room(reserve);
      writer.pos = reserve;
      made.write(writer, value);
      return writer.buf.subarray(0, writer.pos);
    },
    decode(bytes) {
      const reader = new Reader(bytes as Utf8Buffer, bytes.length);
      const value = made.read(reader);
      if (reader.pos > bytes.length) throw new TruncatedError('cut short');
      if (reader.pos < bytes.length) throw new TruncatedError('followed by trailing bytes');
      return value;
    },
  };
}
