import { describe, expect, it } from 'vitest';
import { formatKvhx, parseKvhx, canonicalKvhx } from '../../../services/domain/kvhx.ts';

describe('kvhx (docs/decisions.md §12)', () => {
  it('formats the example of §12', () => {
    expect(formatKvhx({ kommunekode: '461', vejkode: '5319', husnummer: '93', etage: '1', door: '' }))
      .toBe('04615319__93__1____');
  });

  it('is 4+4+4+3+4 characters, right-aligned and padded with _', () => {
    const key = formatKvhx({ kommunekode: '0101', vejkode: '12', husnummer: '12a', etage: 'st', door: 'tv' });
    expect(key).toBe('01010012_12A_st__tv');
    expect(key).toHaveLength(19);
  });

  it('is canonical: leading zeros, spaces, case and floor 0 do not matter', () => {
    const a = formatKvhx({ kommunekode: '0101', vejkode: '0012', husnummer: '012A', etage: '00', door: '0001' });
    const b = formatKvhx({ kommunekode: '101', vejkode: '12', husnummer: ' 12a', etage: 'ST', door: '1' });
    expect(a).toBe(b);
    expect(a).toBe('01010012_12A_st___1');
  });

  it('parses back what it formats', () => {
    expect(parseKvhx('04615319__93__1____')).toEqual({
      kommunekode: '0461', vejkode: '5319', husnummer: '93', etage: '1', door: '',
    });
    expect(parseKvhx('01010012_12A_st__tv')).toEqual({
      kommunekode: '0101', vejkode: '0012', husnummer: '12A', etage: 'st', door: 'tv',
    });
    expect(canonicalKvhx('04615319  93  1    ')).toBe('04615319__93__1____');
    expect(canonicalKvhx(' 04615319__93__1____ ')).toBe('04615319__93__1____');
  });

  it.each(['', '0461', '04615319__93__1_____', 'ABCD5319__93__1____', '04615319______1____', '046153191000__1____'])(
    'rejects %j', (key) => {
      expect(parseKvhx(key)).toBeNull();
    });

  it('throws a RangeError for parts that do not fit', () => {
    expect(() => formatKvhx({ kommunekode: '12345', vejkode: '1', husnummer: '1', etage: '', door: '' })).toThrow(RangeError);
    expect(() => formatKvhx({ kommunekode: '1', vejkode: '1', husnummer: '', etage: '', door: '' })).toThrow(RangeError);
  });
});
