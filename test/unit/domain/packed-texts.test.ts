import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBound, PackedTexts, sortedKeys } from '../../../services/domain/packed-texts.ts';

describe('packed texts (register records in UTF-8 pages)', () => {
  it('gives back every text as added, across page boundaries and in any script (property)', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 80 }), { maxLength: 200 }), (texts) => {
      const packed = new PackedTexts();
      const slots = texts.map((t) => packed.add(t));
      expect(slots).toEqual(texts.map((_, i) => i));
      expect(texts.map((_, i) => packed.get(i))).toEqual(texts);
    }));
  });

  it('fills more than one 4 MiB page without losing a text, and cuts an over-long text', () => {
    const packed = new PackedTexts();
    const text = (i: number) => `${i}\u001fSøren Ærø ${'æ'.repeat(i % 300)}`;
    for (let i = 0; i < 30_000; i++) packed.add(text(i));
    expect(packed.bytes).toBeGreaterThan(4 * 2 ** 20);
    for (const i of [0, 1, 9_999, 17_321, 29_999]) expect(packed.get(i)).toBe(text(i));
    const long = 'ø'.repeat(100_000);
    const slot = packed.add(long);
    expect(packed.get(slot)).toBe(long.slice(0, 21_845));
  });

  it('sorted keys find the first of equal keys, in the order of their slots', () => {
    const { keys, slots } = sortedKeys([5, 3, 5, 1, 3], [0, 1, 2, 3, 4]);
    expect([...keys]).toEqual([1, 3, 3, 5, 5]);
    expect([...slots]).toEqual([3, 1, 4, 0, 2]);
    expect(lowerBound(keys, 3)).toBe(1);
    expect(lowerBound(keys, 4)).toBe(3);
    expect(lowerBound(keys, 9)).toBe(5);
    const big = sortedKeys([0x0fffffff, 99_999_999], [(1 << 24) - 1, 7]);
    expect([...big.keys, ...big.slots]).toEqual([99_999_999, 0x0fffffff, 7, (1 << 24) - 1]);
  });
});
