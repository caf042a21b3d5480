/**
 * The RowsChunk's person records (the schema's PersonInput, fields in PERSON_FIELDS' order, each a
 * [null, string] union) written by the tokenizer while it reads each person, for the embedded
 * job's intake (docs/intake.md "Avro people"): no person object, no string per field and no
 * Avro record per row. The bytes are the codec's for the same person (test/unit/ingest/
 * avro-people.test.ts holds them to avsc's): union index 2 + zig-zag length + UTF-8, or 0 for an
 * absent field; a field given twice keeps its last value, as the person object does.
 */

/** A batch's people as Avro: person `i` is `bytes[i === 0 ? 0 : ends[i - 1], ends[i])`. */
export interface AvroPeople {
  bytes: Buffer;
  ends: number[];
  /**
   * Gives the bytes back to the writer for a later batch, once read (the chunk publisher copies
   * them): a new buffer per batch made V8 collect the whole heap twice as often (its external
   * memory), which cost more than the objects spared (docs/performance.md "Measurements").
   * A batch never released is only garbage.
   */
  release(): void;
}

const FIELD_COUNT = 15;

export class AvroPeopleWriter {
  /** The UTF-8 of the person being read, field by field in body order. */
  private scratch: Buffer = Buffer.allocUnsafeSlow(16 * 1024);
  private scratchPos = 0;
  private readonly fieldStart = new Int32Array(FIELD_COUNT);
  /** -1: the field is absent. */
  private readonly fieldEnd = new Int32Array(FIELD_COUNT).fill(-1);
  /** The batch's person records so far. */
  private out: Buffer = Buffer.allocUnsafeSlow(256 * 1024);
  private outPos = 0;
  private ends: number[] = [];

  beginPerson(): void {
    this.scratchPos = 0;
    this.fieldEnd.fill(-1);
  }

  /**
   * The buffer a field's UTF-8 of at most `units` UTF-16 units is written to, from `fieldAt`
   * (the tokenizer writes it while it scans the string, then calls `fieldWritten`).
   */
  fieldRoom(units: number): Buffer {
    if (this.scratchPos + 3 * units + 4 > this.scratch.length) this.scratch = grown(this.scratch, this.scratchPos, 3 * units + 4);
    return this.scratch;
  }

  get fieldAt(): number {
    return this.scratchPos;
  }

  fieldWritten(index: number, end: number): void {
    this.fieldStart[index] = this.scratchPos;
    this.fieldEnd[index] = end;
    this.scratchPos = end;
  }

  /** Field `index`'s value is `text[from, to)` as it stands (a JSON string without escapes). */
  fieldText(index: number, text: string, from: number, to: number): void {
    if (this.scratchPos + 3 * (to - from) > this.scratch.length) this.scratch = grown(this.scratch, this.scratchPos, 3 * (to - from));
    const buf = this.scratch;
    const start = this.scratchPos;
    let pos = start;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        buf[pos++] = c;
      } else if (c < 0x800) {
        buf[pos++] = (c >> 6) | 0xc0;
        buf[pos++] = (c & 0x3f) | 0x80;
      } else if ((c & 0xfc00) === 0xd800 && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        // A surrogate pair (the body is valid UTF-8, so a high surrogate is always followed by its low one).
        const point = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00);
        i += 1;
        buf[pos++] = (point >> 18) | 0xf0;
        buf[pos++] = ((point >> 12) & 0x3f) | 0x80;
        buf[pos++] = ((point >> 6) & 0x3f) | 0x80;
        buf[pos++] = (point & 0x3f) | 0x80;
      } else {
        buf[pos++] = (c >> 12) | 0xe0;
        buf[pos++] = ((c >> 6) & 0x3f) | 0x80;
        buf[pos++] = (c & 0x3f) | 0x80;
      }
    }
    this.fieldStart[index] = start;
    this.fieldEnd[index] = pos;
    this.scratchPos = pos;
  }

  /** Field `index`'s value is `value` (decoded from a JSON string with escapes; well-formed). */
  fieldString(index: number, value: string): void {
    this.fieldText(index, value, 0, value.length);
  }

  /** Writes the person's record after the ones before it. */
  endPerson(): void {
    if (this.outPos + FIELD_COUNT * 4 + this.scratchPos > this.out.length) {
      this.out = grown(this.out, this.outPos, FIELD_COUNT * 4 + this.scratchPos);
    }
    const out = this.out;
    let pos = this.outPos;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const end = this.fieldEnd[f];
      if (end < 0) {
        out[pos++] = 0;
        continue;
      }
      const start = this.fieldStart[f];
      out[pos++] = 2;
      // The byte length, zig-zagged (2n) as an Avro varint: at most 3 bytes for a person's field.
      let n = (end - start) * 2;
      while (n >= 0x80) {
        out[pos++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
      out[pos++] = n;
      // A loop, not Buffer.copy: fields are a few bytes, and a call into C++ per field cost more
      // than the bytes (docs/performance.md "Measurements").
      const scratch = this.scratch;
      for (let k = start; k < end; k++) out[pos++] = scratch[k];
    }
    this.outPos = pos;
    this.ends.push(pos);
  }

  /** Buffers of released batches. */
  private readonly free: Buffer[] = [];

  /** The batch's records; the writer goes on in a buffer of its own. */
  take(): AvroPeople {
    const owner = this.out;
    let released = false;
    const taken = {
      bytes: owner.subarray(0, this.outPos), ends: this.ends,
      release: () => {
        if (!released) this.free.push(owner);
        released = true;
      },
    };
    this.out = this.free.pop() ?? Buffer.allocUnsafeSlow(256 * 1024);
    this.outPos = 0;
    this.ends = [];
    return taken;
  }
}

function grown(buf: Buffer, used: number, more: number): Buffer {
  const next = Buffer.allocUnsafeSlow(Math.max(buf.length * 2, used + more));
  buf.copy(next, 0, 0, used);
  return next;
}
