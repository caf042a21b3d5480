import { describe, expect, it } from 'vitest';
import {
  guessColumnMapping, isUnreadablePerson, mappingWarnings, mappingWarningText, warningsOfRefusalCode, warningsRefusalCode, warningsRefusalTexts,
} from '../../../../services/ingest/files/index.ts';

describe('column guessing from headers and content', () => {
  const rows = (header: string[], cells: (i: number) => string[]) => [header, ...Array.from({ length: 10 }, (_, i) => cells(i))];

  it('an "Adr." column of street-and-number texts is the address', () => {
    expect(guessColumnMapping(rows(['Navn', 'Adr.', 'Postnr'], (i) => ['Anne Hansen', `Vestergade ${i + 1}`, '8000'])))
      .toEqual({ header_row: 0, name: 'Navn', address: 'Adr.', postal_code: 'Postnr' });
  });

  it('a known header is never overruled, and a column of other texts is not taken', () => {
    expect(guessColumnMapping(rows(['Navn', 'Vej', 'Nr', 'Note'], (i) => ['Anne Hansen', 'Vestergade', String(i + 1), `Ring efter ${i + 1}`])))
      .toEqual({ header_row: 0, name: 'Navn', street: 'Vej', house_number: 'Nr' });
    expect(guessColumnMapping(rows(['Navn', 'Note', 'Postnr'], () => ['Anne Hansen', 'ring tilbage', '8000'])))
      .toEqual({ header_row: 0, name: 'Navn', postal_code: 'Postnr' });
  });

  it('a repeated unknown header is mapped by index', () => {
    expect(guessColumnMapping(rows(['Navn', 'X', 'X'], (i) => ['Anne Hansen', 'ja', `Vestergade ${i + 1}`])))
      .toEqual({ header_row: 0, name: 'Navn', address: 2 });
  });
});

describe('mapping warnings', () => {
  const none = Array<boolean>(20).fill(false);

  it('no name and no address column; the row warning is left out when a column warning says why', () => {
    expect(mappingWarnings({ header_row: 0, postal_code: 'Postnr' }, {}, Array(20).fill(true)).map((w) => w.code))
      .toEqual(['no_name_column', 'no_address_column']);
    expect(mappingWarnings(null, {}, []).map((w) => w.code)).toEqual(['no_name_column', 'no_address_column']);
  });

  it('more than half of the first rows unreadable is a warning with the counts; half is not', () => {
    const mapping = { name: 'Navn', address: 'Adresse' };
    expect(mappingWarnings(mapping, {}, [...Array(11).fill(true), ...Array(9).fill(false)]))
      .toEqual([{ code: 'mostly_unreadable', rows: { unreadable: 11, of: 20 } }]);
    expect(mappingWarnings(mapping, {}, [...Array(10).fill(true), ...Array(10).fill(false)])).toEqual([]);
    expect(mappingWarnings(mapping, {}, none)).toEqual([]);
  });

  it('phone-only jobs need a phone column, not a name or address; company checks a CVR or company name', () => {
    expect(mappingWarnings({ cvr: 0 }, { check_people: false, check_phones: true }, []).map((w) => w.code)).toEqual(['no_phone_column']);
    expect(mappingWarnings({ phone: 0 }, { check_people: false, check_phones: true }, [])).toEqual([]);
    expect(mappingWarnings({ name: 0, address: 1 }, { check_companies: true }, none).map((w) => w.code)).toEqual(['no_company_column']);
  });

  it('a person without a name, or without street, number and postal code, is unreadable', () => {
    expect(isUnreadablePerson({ name: 'Anne Hansen', address: 'Vestergade 12', postal_code: '8000' })).toBe(false);
    expect(isUnreadablePerson({ address: 'Vestergade 12', postal_code: '8000' })).toBe(true);
    expect(isUnreadablePerson({ name: 'Anne Hansen', address: 'Vestergade', postal_code: '8000' })).toBe(true);
    expect(isUnreadablePerson({ name: 'Anne Hansen', postal_code: '8000' })).toBe(true);
  });

  it('texts in both languages; the refusal code carries the warnings to a later reply unchanged', () => {
    const warnings = [{ code: 'no_address_column' as const }, { code: 'mostly_unreadable' as const, rows: { unreadable: 17, of: 20 } }];
    expect(mappingWarningText(warnings[1], 'da')).toContain('17 af de første 20 rækker');
    expect(mappingWarningText(warnings[1], 'en')).toContain('17 of the first 20 rows');
    const code = warningsRefusalCode(warnings);
    expect(code).toBe('mapping_warnings:no_address_column,mostly_unreadable@17/20');
    expect(warningsOfRefusalCode(code)).toEqual(warnings);
    expect(warningsOfRefusalCode('file_corrupt')).toBeNull();
    expect(warningsOfRefusalCode('mapping_warnings:rm -rf')).toBeNull();
    const texts = warningsRefusalTexts(warnings);
    expect(texts.da).toContain('Intet er tjekket, og intet er faktureret');
    expect(texts.en).toContain('Nothing was checked and nothing was billed');
  });
});
