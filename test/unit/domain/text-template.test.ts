import { describe, expect, it } from 'vitest';
import { countIn, fillText } from '../../../services/domain/text-template.ts';

describe('fillText', () => {
  it('puts each value in its placeholder, as often as it appears', () => {
    expect(fillText('{n} of {of}; at most {n}', { n: 3, of: 'ten' })).toBe('3 of ten; at most 3');
  });

  it('does not read placeholders inside a value (a file name may hold braces)', () => {
    expect(fillText('File "{filename}"', { filename: 'a{filename}b{x}.csv' })).toBe('File "a{filename}b{x}.csv"');
  });

  it('leaves a placeholder without a value visible', () => {
    expect(fillText('Hello {name}', {})).toBe('Hello {name}');
  });
});

describe('countIn', () => {
  it('writes a count as each language does', () => {
    expect(countIn('da', 12345)).toBe('12.345');
    expect(countIn('en', 12345)).toBe('12,345');
  });
});
