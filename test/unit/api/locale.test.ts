import { describe, expect, it } from 'vitest';
import { localeFrom } from '../../../services/api/locale.ts';
import { formatPath } from '../../../services/api/zod-issues.ts';

describe('localeFrom (Accept-Language)', () => {
  it.each([
    [undefined, 'da'],
    ['', 'da'],
    ['en', 'en'],
    ['en-GB,en;q=0.9', 'en'],
    ['da-DK', 'da'],
    ['de-DE, en;q=0.5', 'en'],
    ['en;q=0.4, da;q=0.8', 'da'],
    ['da;q=0, en;q=0.1', 'en'],
    ['fr, de', 'da'],
    ['EN-us', 'en'],
    ['en;q=abc', 'da'],
  ] as const)('%j → %s', (header, expected) => {
    expect(localeFrom(header)).toBe(expected);
  });

  it('reads repeated headers', () => {
    expect(localeFrom(['fr', 'en;q=0.2'])).toBe('en');
  });
});

describe('formatPath', () => {
  it('writes paths like accessors', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['people', 3, 'last_name'])).toBe('people[3].last_name');
    expect(formatPath(['addresses', 0])).toBe('addresses[0]');
  });
});
