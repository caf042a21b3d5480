import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildAddressRegister, resolveWithRegister, type RegisterAddress,
} from '../../../services/domain/index.ts';
import { generateRegisterAddresses } from '../../../services/synthetic/register.ts';

/** Real addresses of the register (DAWA), as the importer hands them over. */
function unit(
  street: string, houseNumber: string, floor: string | null, door: string | null, postalCode: string,
  postalName: string, extra: Partial<RegisterAddress> = {},
): RegisterAddress {
  return {
    accessId: `${street}|${houseNumber}|${postalCode}`, street, addressingName: null, houseNumber, floor, door,
    postalCode, postalName, town: null, kommunekode: null, vejkode: null, ...extra,
  };
}

const BORGM = { addressingName: 'Borgm Christiansens Gade' };
const register = buildAddressRegister([
  unit('Borgmester Christiansens Gade', '50', 'st', 'tv', '2450', 'København SV', BORGM),
  unit('Borgmester Christiansens Gade', '50', '1', 'tv', '2450', 'København SV', BORGM),
  unit('Borgmester Christiansens Gade', '50', '2', 'th', '2450', 'København SV', BORGM),
  unit('Gammel Kongevej', '12A', '2', 'tv', '1610', 'København V', { kommunekode: '0101', vejkode: '2390' }),
  unit('Gammel Kongevej', '12A', '2', 'th', '1610', 'København V', { kommunekode: '0101', vejkode: '2390' }),
  unit('Skeevej', '39B', 'st', null, '4370', 'Store Merløse', { town: 'Skee' }),
  unit('Tofthøjvej', '20', null, '1', '4130', 'Viby Sjælland'),
  unit('Tofthøjvej', '20', null, '2', '4130', 'Viby Sjælland'),
  unit('Nørregade', '7', 'kl', null, '5000', 'Odense C'),
  unit('Nørregade', '7', 'st', null, '5000', 'Odense C'),
  unit('Nørregade', '7', '1', null, '5000', 'Odense C'),
  unit('Lindevej', '3', null, null, '5000', 'Odense C'),
  unit('Lundevej', '3', null, null, '5000', 'Odense C'),
  unit('Nikolaj Plads', '26', null, null, '0800', 'Høje Taastrup'),
]);

function resolve(text: string) {
  return resolveWithRegister(register, text);
}

describe('resolution against the register (docs/decisions.md §13, datavask)', () => {
  it('exact: the register\'s own text, answered in the register\'s spelling', () => {
    const { address, match } = resolve('Borgmester Christiansens Gade 50, 1. tv, 2450 København SV');
    expect(address).toEqual({
      input: 'Borgmester Christiansens Gade 50, 1. tv, 2450 København SV', ok: true,
      street: 'Borgmester Christiansens Gade', house_number: '50', floor: '1', door: 'tv', postal_code: '2450',
      city: 'København SV', formatted: 'Borgmester Christiansens Gade 50, 1. tv, 2450 København SV',
      confidence: 'exact',
    });
    expect(match.notFound).toBe(false);
  });

  it('the short addressing name and the full name are both exact', () => {
    const { address } = resolve('Borgm Christiansens Gade 50, 1. tv, 2450 København SV');
    expect(address).toMatchObject({ confidence: 'exact', street: 'Borgmester Christiansens Gade' });
  });

  it('leading zeros in house numbers, floors and doors are ignored', () => {
    expect(resolve('Borgmester Christiansens Gade 050, 01. tv, 2450').address)
      .toMatchObject({ confidence: 'exact', house_number: '50', floor: '1' });
    expect(resolve('Tofthøjvej 020, 01, 4130 Viby Sjælland').address)
      .toMatchObject({ confidence: 'exact', house_number: '20', floor: null, door: '1' });
  });

  it('"kld." is "kl"', () => {
    expect(resolve('Nørregade 7, kld., 5000 Odense C').address).toMatchObject({ confidence: 'exact', floor: 'kl' });
  });

  it.each(['2tv', '2 sal tv', '2. sAl tv', '2. tv', '2 tv', '2.tv'])('"%s" is 2nd floor, door tv', (unitText) => {
    const { address } = resolve(`Gl. Kongevej 12A, ${unitText}, 1610 København V`);
    expect(address).toMatchObject({
      confidence: 'exact', floor: '2', door: 'tv', formatted: 'Gammel Kongevej 12A, 2. tv, 1610 København V',
    });
  });

  it('a missing postal code is accepted when the town name is exact', () => {
    expect(resolve('Nørregade 7, kl., Odense C').address)
      .toMatchObject({ confidence: 'exact', postal_code: '5000' });
    expect(resolve('Skeevej 39B, st., Skee, Store Merløse').address).toMatchObject({
      confidence: 'exact', postal_code: '4370', formatted: 'Skeevej 39B, st., Skee, 4370 Store Merløse',
    });
    // "Odense" is no postal district's name: nothing to resolve with.
    expect(resolve('Nørregade 7, kl., Odense').address.confidence).toBe('unresolved');
  });

  it('the supplementary town name is part of the register\'s form; another town is an unknown word', () => {
    expect(resolve('Skeevej 39B, st., Skee, 4370 Store Merløse').address.confidence).toBe('exact');
    expect(resolve('Skeevej 39B, st., 4370 Store Merløse').address.confidence).toBe('exact');
    expect(resolve('Skeevej 39B, st., Tved, 4370 Store Merløse').address.confidence).toBe('corrected');
  });

  it('a city other than the postal district\'s name is an unknown word: corrected, not exact', () => {
    expect(resolve('Nørregade 7, kl., 5000 Odense').address)
      .toMatchObject({ confidence: 'corrected', city: 'Odense C' });
  });

  it('the closest street wins only when it is unambiguous', () => {
    expect(resolve('Borgmester Christiansens Gdae 50, 1. tv, 2450').address)
      .toMatchObject({ confidence: 'corrected', street: 'Borgmester Christiansens Gade' });
    // "Lyndevej" is one edit from Lindevej and from Lundevej, both with a number 3.
    const ambiguous = resolve('Lyndevej 3, 5000 Odense C');
    expect(ambiguous.address.confidence).toBe('unresolved');
    expect(ambiguous.match.notFound).toBe(true);
  });

  it('house number, floor, door and postal code are never corrected', () => {
    expect(resolve('Borgmester Christiansens Gade 52, 1. tv, 2450').match)
      .toMatchObject({ access: -1, notFound: true });
    expect(resolve('Borgmester Christiansens Gade 50, 1. tv, 2400').match.notFound).toBe(true);
    // The building is there, the unit is not: unresolved, but the address exists.
    expect(resolve('Borgmester Christiansens Gade 50, 5. tv, 2450').match)
      .toMatchObject({ unit: -1, confidence: 'unresolved', notFound: false });
  });

  it('a one-number unit resolves whether written as floor or door ("Tofthøjvej 20, 1")', () => {
    expect(resolve('Tofthøjvej 20, 1., 4130 Viby Sjælland').address).toMatchObject({ confidence: 'exact', door: '1' });
    expect(resolve('Nørregade 7, 1, 5000 Odense C').address).toMatchObject({ confidence: 'exact', floor: '1' });
  });

  it('large-recipient postal codes (0800) resolve', () => {
    expect(resolve('Nikolaj Plads 26, 0800 Høje Taastrup').address)
      .toMatchObject({ confidence: 'exact', postal_code: '0800' });
  });

  it('a building without units written resolves when it has one unit only', () => {
    expect(resolve('Lindevej 3, 5000 Odense C').address.confidence).toBe('exact');
    expect(resolve('Nørregade 7, 5000 Odense C').match).toMatchObject({ unit: -1, notFound: false });
  });

  it('unreadable text is unresolved and not "not found"', () => {
    expect(resolve('?')).toMatchObject({ address: { ok: false, confidence: 'unresolved' }, match: { notFound: false } });
  });
});

describe('resolution properties', () => {
  const synthetic = [...generateRegisterAddresses(60_000)];
  const big = buildAddressRegister(synthetic);

  it('never throws, on any text', () => {
    fc.assert(fc.property(fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.array(fc.constantFrom('Gl.', 'Skee', '12A', '3.', 'tv', 'st', 'kl', '1050', 'København K', ',', '0800', '0'), { maxLength: 12 })
        .map((w) => w.join(' ')),
    ), (text) => {
      const { address } = resolveWithRegister(big, text);
      expect(['exact', 'corrected', 'unresolved']).toContain(address.confidence);
    }), { numRuns: 2000 });
  });

  it('an address formatted from the register resolves exact to itself', () => {
    fc.assert(fc.property(fc.nat({ max: synthetic.length - 1 }), (i) => {
      const a = synthetic[i];
      const floorDoor = a.floor === null && a.door === null ? ''
        : `, ${a.floor === null ? '' : `${a.floor}.`}${a.floor !== null && a.door !== null ? ' ' : ''}${a.door ?? ''}`;
      const text = `${a.street} ${a.houseNumber}${floorDoor}${a.town ? `, ${a.town}` : ''}, ${a.postalCode} ${a.postalName}`;
      const { address } = resolveWithRegister(big, text);
      expect(address.confidence, text).toBe('exact');
      expect(address.formatted, text).toBe(text);
    }), { numRuns: 3000 });
  });
});
