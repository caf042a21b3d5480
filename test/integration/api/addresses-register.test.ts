import { describe, expect, it } from 'vitest';
import type { RegisterAddress } from '../../../services/domain/address-register.ts';
import { bearer, build } from './helper.ts';

/** Real addresses of the register, as the importer hands them over. */
function unit(street: string, house: string, floor: string | null, door: string | null, postal: string, name: string,
  extra: Partial<RegisterAddress> = {}): RegisterAddress {
  return {
    accessId: `${street}|${house}|${postal}`, street, addressingName: null, houseNumber: house, floor, door,
    postalCode: postal, postalName: name, town: null, kommunekode: null, vejkode: null, ...extra,
  };
}

const REGISTER: RegisterAddress[] = [
  unit('Borgmester Christiansens Gade', '50', '1', 'tv', '2450', 'København SV', { addressingName: 'Borgm Christiansens Gade' }),
  unit('Skeevej', '39B', 'st', null, '4370', 'Store Merløse', { town: 'Skee' }),
  unit('Vestergade', '12', '2', 'tv', '8000', 'Aarhus C'),
  unit('Vestergade', '12', '2', 'th', '8000', 'Aarhus C'),
];

describe('the address register through the API', () => {
  it('POST /v2/addresses/resolve answers in the register\'s spelling, with datavask confidence', async () => {
    const { app, orgA } = await build({ registerAddresses: REGISTER });
    const response = await app.inject({
      method: 'POST', url: '/v2/addresses/resolve', headers: bearer(orgA.liveKey),
      payload: { addresses: [
        'borgm christiansens gade 050, 1 sal tv, 2450',
        'Skeevej 39B, stuen, Skee, Store Merløse',
        'Borgmester Christiansens Gdae 50, 1. tv, 2450 København SV',
        'Skeevej 40, 4370 Store Merløse',
        '?',
      ] },
    });
    expect(response.statusCode).toBe(200);
    const [exact, noPostal, corrected, missing, unreadable] = response.json().results;
    expect(exact).toEqual({
      input: 'borgm christiansens gade 050, 1 sal tv, 2450', ok: true, street: 'Borgmester Christiansens Gade',
      house_number: '50', floor: '1', door: 'tv', postal_code: '2450', city: 'København SV',
      formatted: 'Borgmester Christiansens Gade 50, 1. tv, 2450 København SV', confidence: 'exact',
    });
    expect(noPostal).toMatchObject({ confidence: 'exact', formatted: 'Skeevej 39B, st., Skee, 4370 Store Merløse' });
    expect(corrected).toMatchObject({ confidence: 'corrected', street: 'Borgmester Christiansens Gade' });
    expect(missing).toMatchObject({ ok: true, confidence: 'unresolved' });
    expect(unreadable).toMatchObject({ ok: false, confidence: 'unresolved' });
  });

  it('checks match on the register address and say address_not_found when it is not in the register', async () => {
    const { app, orgA } = await build({
      registerAddresses: REGISTER,
      liveEntries: [{ first_name: 'Søren', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' }],
    });
    const response = await app.inject({
      method: 'POST', url: '/v2/checks', headers: bearer(orgA.liveKey),
      payload: { stop_level: 5, people: [
        { name: 'Søren Kjær', address: 'VESTERGADE 12 2tv Aarhus C' },
        { name: 'Søren Kjær', address: 'Vestergade 99, 8000 Aarhus C' },
      ] },
    });
    expect(response.statusCode).toBe(200);
    const [member, elsewhere] = response.json().results;
    expect(member).toMatchObject({ status: 'blocked', match: { level: 5 }, address: { confidence: 'exact', postal_code: '8000' } });
    expect(elsewhere.reasons).toContain('address_not_found');
    expect(elsewhere.match.level).toBe(0);
  });
});
