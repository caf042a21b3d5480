/**
 * Reading ClickHouse RowBinary output (ClickHouse's "Formats: RowBinary": values one after the
 * other, little-endian integers, a String as its LEB128 length then its bytes). Only the types
 * the stores read this way; a String comes back as a view of the answer's bytes, not a copy.
 */
export class RowBinaryReader {
  private at = 0;
  private readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  uint8(): number {
    this.need(1);
    return this.bytes[this.at++];
  }

  uint32(): number {
    this.need(4);
    const value = this.bytes.readUInt32LE(this.at);
    this.at += 4;
    return value;
  }

  string(): Buffer {
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.uint8();
      length += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
      if (shift > 35) throw new RangeError('RowBinary: a string length longer than 5 bytes');
    }
    this.need(length);
    const value = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return value;
  }

  /** A Nullable(String): a byte saying null (1) or not (0), then the string. */
  nullableString(): Buffer | null {
    return this.uint8() === 1 ? null : this.string();
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new RangeError('RowBinary: the answer ends inside a value');
  }
}
