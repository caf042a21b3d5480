import { describe, expect, it } from 'vitest';
import {
  ColumnMappingError,
  guessColumnMapping,
  NO_HEADER_ROW,
  personFromCells,
  resolveColumnMapping,
} from '../../../../services/ingest/files/index.ts';

describe('guessColumnMapping from headers', () => {
  it('maps the Danish headers of the issue, whatever their case, spacing and punctuation', () => {
    const header = ['NAVN', 'fornavn', ' Efter-navn ', 'Adresse', 'Vejnavn', 'Husnr.', 'Etage', 'Dør', 'Post nr.', 'By', 'Telefon', 'CVR-nr.', 'Firma', 'Kundenr.'];
    expect(guessColumnMapping([header])).toEqual({
      header_row: 0,
      name: 'NAVN',
      first_name: 'fornavn',
      last_name: ' Efter-navn ',
      address: 'Adresse',
      street: 'Vejnavn',
      house_number: 'Husnr.',
      floor: 'Etage',
      door: 'Dør',
      postal_code: 'Post nr.',
      city: 'By',
      phone: 'Telefon',
      cvr: 'CVR-nr.',
      company_name: 'Firma',
      external_id: 'Kundenr.',
    });
  });

  it('maps English headers and Danish letters written as ae/oe/aa', () => {
    expect(guessColumnMapping([['First name', 'Last_Name', 'Street address', 'ZIP code', 'City', 'Mobile', 'Customer ID', 'Doer']])).toEqual({
      header_row: 0,
      first_name: 'First name',
      last_name: 'Last_Name',
      address: 'Street address',
      postal_code: 'ZIP code',
      city: 'City',
      phone: 'Mobile',
      external_id: 'Customer ID',
      door: 'Doer',
    });
  });

  it('finds the header row below title lines, and names a repeated header by index', () => {
    const rows = [['Kundeliste december'], ['Navn', 'Adresse', 'Navn'], ['Jens Hansen', 'Vej 1', 'x']];
    expect(guessColumnMapping(rows)).toEqual({ header_row: 1, name: 0, address: 'Adresse' });
  });

  it('maps a header-less file by content: addresses, postal codes and the city after them, names', () => {
    const rows = [
      ['Jens Hansen', 'Nørregade 12, 2. tv', '1165', 'København K', '+45 12 34 56 78'],
      ['Anne Marie Berg', 'Vestergade 3', '8000', 'Aarhus C', '23 45 67 89'],
      ['Ole Sørensen', 'Søndre Boulevard 101A', '5000', 'Odense C', null],
    ];
    expect(guessColumnMapping(rows)).toEqual({ header_row: NO_HEADER_ROW, name: 0, address: 1, postal_code: 2, city: 3, phone: 4 });
  });

  it('maps first and last name columns side by side', () => {
    const rows = [
      ['Jens', 'Hansen', 'Nørregade 12', '1165'],
      ['Anne', 'Berg', 'Vestergade 3', '8000'],
    ];
    expect(guessColumnMapping(rows)).toEqual({ header_row: NO_HEADER_ROW, first_name: 0, last_name: 1, address: 2, postal_code: 3 });
  });

  it('asks (null) when neither headers nor content tell the columns', () => {
    expect(guessColumnMapping([['17', '42.5', 'x1'], ['18', '43', 'y2']])).toBeNull();
    expect(guessColumnMapping([['Hansen Holding'], ['Berg ApS']])).toBeNull();
  });
});

describe('resolveColumnMapping', () => {
  const header = ['Kundenr.', 'Navn', 'Adresse', 'Postnr.'];

  it('takes indexes and header names, the latter exactly or normalised', () => {
    expect(resolveColumnMapping({ external_id: 0, name: 'navn', address: 'Adresse', postal_code: 'POSTNR' }, header, 4)).toEqual({
      header_row: 0,
      columns: { external_id: 0, name: 1, address: 2, postal_code: 3 },
    });
  });

  it('names every field whose column does not exist, with its path', () => {
    try {
      resolveColumnMapping({ name: 'Fornavn', address: 7, postal_code: -1 }, header, 4);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ColumnMappingError);
      expect((error as ColumnMappingError).issues).toEqual([
        { path: 'column_mapping.name', code: 'column_not_found' },
        { path: 'column_mapping.address', code: 'column_not_found' },
        { path: 'column_mapping.postal_code', code: 'column_not_found' },
      ]);
    }
  });

  it('refuses a header name on a file without a header row, and an empty mapping', () => {
    expect(() => resolveColumnMapping({ header_row: NO_HEADER_ROW, name: 'Navn' }, null, 3)).toThrow(/column_mapping.name no_header_row/);
    expect(() => resolveColumnMapping({ header_row: 0 }, header, 4)).toThrow(/column_mapping no_columns_mapped/);
  });
});

describe('personFromCells', () => {
  it('builds the PersonInput with id from external_id, trimmed, empty cells left out', () => {
    const mapping = resolveColumnMapping({ external_id: 0, name: 1, address: 2, postal_code: 3, cvr: 4, company_name: 5, phone: 6 }, null, 7);
    expect(personFromCells(['K-7', ' Jens Hansen ', 'Vej 1', null, '12345678', '  ', '+4512345678'], mapping)).toEqual({
      id: 'K-7',
      name: 'Jens Hansen',
      address: 'Vej 1',
      cvr: '12345678',
      phone: '+4512345678',
    });
  });
});
