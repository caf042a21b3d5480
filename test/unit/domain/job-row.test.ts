import { describe, expect, it } from 'vitest';
import {
  buildListIndex, checkJobRow, checkPerson, createCompanyIndexBuilder, findCompany, normalisePhone, testRowLookups,
  type CompanyRecord, type DirectoryEntry, type JobChecks, type RowLookups,
} from '../../../services/domain/index.ts';
import type { CheckOptions } from '../../../services/domain/types.ts';

/**
 * A check job's row with company and phone checks (docs/decisions.md §17 in jobs): the same domain code
 * as the synchronous /v2/company-checks and /v2/phone-checks, combined into one CheckResult.
 */
const options: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };
const ALL: JobChecks = { people: true, companies: true, phones: true };
const COMPANIES: JobChecks = { people: false, companies: true, phones: false };
const PHONES: JobChecks = { people: false, companies: false, phones: true };
const test = testRowLookups(options);

describe('job rows in test mode (docs/decisions.md §3 fixed answers)', () => {
  it('CVR 00000000-00000099 is a protected company: blocked, company_protected, the company result attached', () => {
    const result = checkJobRow({ id: 'r1', cvr: '00000042' }, COMPANIES, test, options);
    expect(result).toMatchObject({ id: 'r1', status: 'blocked', reasons: ['company_protected'], match: { level: null }, phone_lookup: null });
    expect(result.company).toEqual({
      id: 'r1', cvr: '00000042', name: 'Test Reklamebeskyttet A/S', status: 'blocked', reasons: ['company_protected'],
      company_form: 'A/S', synced_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('another CVR or a company name is an unprotected ApS: allowed', () => {
    expect(checkJobRow({ cvr: '25313763' }, COMPANIES, test, options)).toMatchObject({ status: 'allowed', reasons: [], company: { company_form: 'ApS' } });
    expect(checkJobRow({ company_name: 'Hansens Cykler' }, COMPANIES, test, options)).toMatchObject({ status: 'allowed', company: { name: 'Hansens Cykler' } });
  });

  it.each([
    ['+45 12 34 0000', 'manual', ['phone_not_found'], { outcome: 'not_found' }],
    ['12 34 11 11', 'manual', ['phone_unlisted'], { outcome: 'unlisted' }],
    ['12 34 56 78', 'allowed', [], { outcome: 'found', name: 'Test Testesen', address: 'Testvej 1, 1000 København K' }],
  ])('phone %s → %s %j with phone_lookup', (phone, status, reasons, lookup) => {
    const result = checkJobRow({ id: 'p', phone }, PHONES, test, options);
    expect(result).toMatchObject({ id: 'p', status, reasons });
    expect(result.phone_lookup).toEqual(lookup);
    expect(result).not.toHaveProperty('company');
  });

  it('an unlisted number never shows the name or address behind it', () => {
    expect(JSON.stringify(checkJobRow({ phone: '12341111' }, PHONES, test, options))).not.toContain('Testesen');
  });

  it('every check asked for runs; the most restrictive status wins and the reasons are merged', () => {
    const result = checkJobRow(
      { id: 'x', name: 'Anne Robinson', address: 'Vestergade 12, 8000 Aarhus C', cvr: '00000001', phone: '12345678' }, ALL, test, options,
    );
    expect(result.status).toBe('blocked');
    expect(result.reasons).toEqual(['name_and_unit', 'company_protected']);
    expect(result.match.level).toBe(5);
    expect(result.phone_lookup?.outcome).toBe('found');
    expect(result.company?.status).toBe('blocked');
    // The person is allowed, the number unlisted: manual wins over allowed.
    const unlisted = checkJobRow({ name: 'Anne Andersen', address: 'Vestergade 12, 8000 Aarhus C', phone: '12341111' }, ALL, test, options);
    expect(unlisted).toMatchObject({ status: 'manual', reasons: ['phone_unlisted'], match: { level: 0 }, phone_lookup: { outcome: 'unlisted' } });
  });

  it('a check the row gives nothing to is skipped; a row that gives nothing to any check is never allowed', () => {
    // check_people is on, but a row with only a number is a phone check (not no_name).
    expect(checkJobRow({ phone: '12345678' }, ALL, test, options)).toMatchObject({ status: 'allowed', phone_lookup: { outcome: 'found' } });
    expect(checkJobRow({}, ALL, test, options)).toMatchObject({ status: 'manual', reasons: ['address_unreadable', 'no_name'], phone_lookup: null });
    expect(checkJobRow({}, PHONES, test, options)).toMatchObject({ status: 'manual', reasons: ['phone_not_found'] });
    const company = checkJobRow({ id: 'e' }, COMPANIES, test, options);
    expect(company).toMatchObject({ status: 'manual', reasons: [], company: { id: 'e', cvr: null, name: null, status: 'manual', company_form: null } });
  });
});

describe('job rows against a register, a directory and a list (live lookups)', () => {
  const listed = { first_name: 'Søren', last_name: 'Kjær', address: 'Vestergade 12, 8000 Aarhus C' };
  const list = buildListIndex([listed]);
  const records: CompanyRecord[] = [
    { cvr: '25313763', name: 'Kjærs Tømrer', form: 'ENK', protected: false, owner: { name: 'Søren Kjær', address: 'Vestergade 12, 8000 Aarhus C' } },
    { cvr: '10150817', name: 'Beskyttet ApS', form: 'ApS', protected: true, owner: null },
    { cvr: '29403473', name: 'Fri ApS', form: 'ApS', protected: false, owner: null },
    { cvr: '31662834', name: 'Anden Enkeltmand', form: 'ENK', protected: false, owner: { name: 'Ole Olsen', address: 'Nørregade 1, 1165 København K' } },
  ];
  const builder = createCompanyIndexBuilder();
  for (const r of records) builder.add(r);
  const companies = builder.build();
  const directory = new Map<string, DirectoryEntry>([
    ['+4522334455', { number: '+4522334455', name: 'Søren Kjær', address: 'Vestergade 12, 8000 Aarhus C', listed: true }],
    ['+4566778899', { number: '+4566778899', name: 'Hemmelig Person', address: 'Skjultvej 1, 8000 Aarhus C', listed: false }],
  ]);
  const live: RowLookups = {
    checkPerson: (person) => checkPerson(list, person, options),
    findCompany: (input) => findCompany(companies, input),
    companySyncedAt: '2026-11-01T10:00:00.000Z',
    phoneEntry: (phone) => {
      const number = normalisePhone(phone);
      return number === null ? null : directory.get(number) ?? null;
    },
  };

  it('§17: a protected company is blocked / company_protected', () => {
    expect(checkJobRow({ cvr: '1015 0817' }, COMPANIES, live, options)).toMatchObject({
      status: 'blocked', reasons: ['company_protected'], company: { cvr: '10150817', company_form: 'ApS', synced_at: '2026-11-01T10:00:00.000Z' },
    });
  });

  it('§17: a sole proprietorship whose owner is on the list takes the owner\'s status, reasons and match', () => {
    const result = checkJobRow({ cvr: '25313763' }, COMPANIES, live, options);
    expect(result).toMatchObject({ status: 'blocked', reasons: ['name_and_unit'], match: { level: 5, code: 'name_address' } });
    expect(result.company).toMatchObject({ status: 'blocked', company_form: 'ENK', name: 'Kjærs Tømrer' });
    // An owner not on the list: allowed, the owner's level 0.
    expect(checkJobRow({ cvr: '31662834' }, COMPANIES, live, options)).toMatchObject({ status: 'allowed', match: { level: 0 } });
  });

  it('§17: any other company is allowed; unknown or shared → manual with no reason', () => {
    expect(checkJobRow({ company_name: 'fri aps' }, COMPANIES, live, options)).toMatchObject({ status: 'allowed', company: { cvr: '29403473' } });
    expect(checkJobRow({ cvr: '12345674' }, COMPANIES, live, options)).toMatchObject({ status: 'manual', reasons: [], company: { company_form: null } });
    // A malformed CVR in a job is a company not found (one typo does not refuse a file).
    expect(checkJobRow({ cvr: '123' }, COMPANIES, live, options)).toMatchObject({ status: 'manual', company: { cvr: '123' } });
  });

  it('§17: found → the person the directory names is checked; unlisted / not found → manual with the reason', () => {
    expect(checkJobRow({ phone: '22 33 44 55' }, PHONES, live, options)).toMatchObject({
      status: 'blocked', reasons: ['name_and_unit'], phone_lookup: { outcome: 'found', name: 'Søren Kjær' },
    });
    expect(checkJobRow({ phone: '+45 66 77 88 99' }, PHONES, live, options)).toMatchObject({ status: 'manual', reasons: ['phone_unlisted'], phone_lookup: { outcome: 'unlisted' } });
    expect(checkJobRow({ phone: '99 99 99 99' }, PHONES, live, options)).toMatchObject({ status: 'manual', reasons: ['phone_not_found'] });
    expect(checkJobRow({ phone: 'not a number' }, PHONES, live, options)).toMatchObject({ status: 'manual', reasons: ['phone_not_found'] });
  });
});
