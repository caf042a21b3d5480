import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalCvr, createCompanyIndexBuilder, cvrProblem, cvrWithCheckDigit, decideCompany, findCompany, normalizeText, passesModulus11, soleOwnerOf,
  type CheckResult, type CompanyRecord,
} from '../../../services/domain/index.ts';

describe('CVR numbers', () => {
  it.each([['25313763', null], ['25 31 37 63', null], ['DK-25313763', null], ['dk25313763', null], ['25313764', 'cvr_check_digit'],
    ['2531376', 'cvr_format'], ['253137631', 'cvr_format'], ['2531376a', 'cvr_format'], ['', 'cvr_format'], ['00000042', null]])('%j → %s', (text, problem) => {
    expect(cvrProblem(text)).toBe(problem);
  });

  it('the check digit a generator makes always passes, and changing any one digit fails', () => {
    fc.assert(fc.property(fc.integer({ min: 1_000_000, max: 9_999_999 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 9 }), (n, at, delta) => {
      const cvr = cvrWithCheckDigit(String(n));
      if (cvr === null) return;
      expect(passesModulus11(cvr)).toBe(true);
      const changed = cvr.slice(0, at) + String((Number(cvr[at]) + delta) % 10) + cvr.slice(at + 1);
      expect(passesModulus11(changed)).toBe(false);
    }));
  });

  it('canonical form strips spaces, dashes and DK only', () => {
    expect(canonicalCvr(' 2531-3763 ')).toBe('25313763');
    expect(canonicalCvr('SE25313763')).toBeNull();
  });
});

describe('company decision (docs/decisions.md §17)', () => {
  const owner = { name: 'Søren Kjær', address: 'Vestergade 12, 8000 Aarhus C' };
  const records: CompanyRecord[] = [
    { cvr: '25313763', name: 'Kjærs Tømrer', form: 'ENK', protected: false, owner },
    { cvr: '10150817', name: 'Beskyttet ApS', form: 'ApS', protected: true, owner: null },
    { cvr: '35657339', name: 'Beskyttet Enkeltmand', form: 'ENK', protected: true, owner },
    { cvr: '29403473', name: 'Dobbelt', form: 'ApS', protected: false, owner: null },
    { cvr: '31662834', name: 'dobbelt', form: 'ApS', protected: false, owner: null },
  ];
  const builder = createCompanyIndexBuilder();
  for (const r of records) builder.add(r);
  const index = builder.build();
  const ownerResult = (status: CheckResult['status'], reasons: CheckResult['reasons']) => () => ({ status, reasons }) as CheckResult;

  it('a sole owner exists for ENK, and for PMV only with exactly one owner', () => {
    expect(soleOwnerOf('ENK', ['a'])).toBe('a');
    expect(soleOwnerOf('PMV', ['a'])).toBe('a');
    expect(soleOwnerOf('PMV', ['a', 'b'])).toBeNull();
    expect(soleOwnerOf('ApS', ['a'])).toBeNull();
    expect(soleOwnerOf('ENK', [])).toBeNull();
  });

  it('protected → blocked with company_protected (plus a blocked owner\'s reasons); owner → owner\'s status; else allowed', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(decideCompany({ cvr: '10150817' }, findCompany(index, { cvr: '10150817' }), at, ownerResult('allowed', []))).toMatchObject({ status: 'blocked', reasons: ['company_protected'] });
    expect(decideCompany({ cvr: '35657339' }, findCompany(index, { cvr: '35657339' }), at, ownerResult('blocked', ['name_and_unit']))).toMatchObject({ status: 'blocked', reasons: ['company_protected', 'name_and_unit'] });
    expect(decideCompany({ cvr: '25313763' }, findCompany(index, { cvr: '25313763' }), at, ownerResult('manual', ['household']))).toMatchObject({ status: 'manual', reasons: ['household'], company_form: 'ENK' });
    expect(decideCompany({ cvr: '29403473' }, findCompany(index, { cvr: '29403473' }), at, () => { throw new Error('no owner to check'); })).toMatchObject({ status: 'allowed', reasons: [], synced_at: at });
  });

  it('a name finds a company only when it is unique (case and spacing folded); a CVR wins over a name', () => {
    expect(findCompany(index, { name: 'KJÆRS  tømrer' })?.cvr).toBe('25313763');
    expect(findCompany(index, { name: 'Dobbelt' })).toBeNull();
    expect(findCompany(index, { cvr: '10150817', name: 'Kjærs Tømrer' })?.cvr).toBe('10150817');
    expect(decideCompany({ id: 'x', name: 'Dobbelt' }, null, null, ownerResult('allowed', []))).toEqual({
      id: 'x', cvr: null, name: 'Dobbelt', status: 'manual', reasons: [], company_form: null, synced_at: null,
    });
  });
});

describe('compact company index', () => {
  const record = (i: number, name: string): CompanyRecord => ({
    cvr: String(10_000_000 + i), name, form: i % 3 ? 'ApS' : 'ENK', protected: i % 5 === 0,
    owner: i % 3 ? null : { name: `Ejer ${i}`, address: `Vej ${i}, 8000 Aarhus C` },
  });

  /** The plain definition: by CVR; by folded name only when exactly one company has it. */
  function reference(records: CompanyRecord[]) {
    const byName = new Map<string, CompanyRecord | null>();
    for (const r of records) {
      const key = normalizeText(r.name);
      byName.set(key, byName.has(key) ? null : r);
    }
    return byName;
  }

  it('finds exactly what the plain definition finds, for names with many duplicates (property)', () => {
    const name = fc.array(fc.constantFrom('A', 'b', 'Æ', 'ae', 'a b', 'A  B', 'Ø', 'c', ''), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
    fc.assert(fc.property(fc.array(name, { maxLength: 60 }), (names) => {
      const records = names.map((n, i) => record(i, n.trim() === '' ? 'x' : n));
      const builder = createCompanyIndexBuilder();
      for (const r of records) builder.add(r);
      const index = builder.build();
      const expected = reference(records);
      for (const [folded, company] of expected) expect(findCompany(index, { name: folded })).toEqual(company);
      for (const r of records) expect(findCompany(index, { cvr: r.cvr })).toEqual(r);
      expect(index.size).toBe(records.length);
      expect(findCompany(index, { name: 'findes ikke' })).toBeNull();
    }));
  });

  it('keeps names with the same hash apart (known FNV-1a collisions), also when one of them is shared', () => {
    // costarring/liquid, declinate/macallums and altarage/zinke collide under FNV-1a.
    const names = ['costarring', 'liquid', 'Declinate', 'macallums', 'MACALLUMS', 'altarage', 'zinke', 'Zinke', 'zinke', 'andet'];
    const records = names.map((n, i) => record(i, n));
    const builder = createCompanyIndexBuilder();
    for (const r of records) builder.add(r);
    const index = builder.build();
    expect(index.size).toBe(names.length);
    expect(findCompany(index, { name: 'Costarring' })?.cvr).toBe(records[0].cvr);
    expect(findCompany(index, { name: 'liquid' })?.cvr).toBe(records[1].cvr);
    expect(findCompany(index, { name: 'declinate' })?.cvr).toBe(records[2].cvr);
    expect(findCompany(index, { name: 'macallums' })).toBeNull(); // two companies have it
    expect(findCompany(index, { name: 'altarage' })?.cvr).toBe(records[5].cvr);
    expect(findCompany(index, { name: 'zinke' })).toBeNull();
    expect(findCompany(index, { name: 'Andet' })?.cvr).toBe(records[9].cvr);
    for (const [folded, company] of reference(records)) expect(findCompany(index, { name: folded })).toEqual(company);
  });
});

describe('compact company index: duplicates', () => {
  it('a CVR listed twice in an extract keeps its first record; the later one is found neither by CVR nor by name', () => {
    const builder = createCompanyIndexBuilder();
    builder.add({ cvr: '25313763', name: 'Først ApS', form: 'ApS', protected: false, owner: null });
    builder.add({ cvr: '25313763', name: 'Senere ApS', form: 'A/S', protected: true, owner: null });
    builder.add({ cvr: '10150817', name: 'Anden ApS', form: 'ApS', protected: false, owner: null });
    const index = builder.build();
    expect(index.size).toBe(2);
    expect(findCompany(index, { cvr: '25313763' })?.name).toBe('Først ApS');
    expect(findCompany(index, { name: 'Senere ApS' })).toBeNull();
    expect(findCompany(index, { name: 'først aps' })?.cvr).toBe('25313763');
    expect(findCompany(index, { cvr: '99999998' })).toBeNull();
  });
});
