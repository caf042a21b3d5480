import { describe, expect, it } from 'vitest';
import { createSharedStrings } from '../../../../services/ingest/files/shared-strings.ts';

describe('shared strings kept as bytes', () => {
  it('gives back every string by index across buffer growth, multi-byte letters and empty strings', () => {
    const strings = createSharedStrings();
    const texts = Array.from({ length: 150_000 }, (_, i) => (i % 7 === 0 ? '' : `Søren Ærø ${i} ${'€'.repeat(i % 5)}`));
    for (const t of texts) strings.add(t);
    expect(strings.count).toBe(texts.length);
    for (const i of [0, 1, 6, 7, 65_535, 65_536, 99_999, 149_999]) expect(strings.get(i)).toBe(texts[i]);
    expect(strings.get(150_000)).toBeNull();
    expect(strings.get(-1)).toBeNull();
  });
});
