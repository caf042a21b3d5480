import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson, parseAddress, resolveAddressText } from '../../../services/domain/index.ts';

function read(address: string) {
  const parsed = parseAddress({ address });
  if (parsed === null) throw new Error(`unreadable: ${address}`);
  return parsed;
}

describe('parseAddress: one string', () => {
  it('reads the examples of the brief', () => {
    expect(read('Gl. Kongevej 12A, 3. tv, 1610 København V')).toMatchObject({
      street: 'gammel kongevej', houseNumber: '12a', floor: '3', door: 'tv', postalCode: '1610',
      city: 'koebenhavn v', buildingKey: 'gammelkongevej|12a|1610', unitKey: '3|tv',
      kvhxBuilding: null, kvhxUnit: null,
    });
    expect(read('Skt. Jørgens Allé 5 st th 8000 Aarhus C')).toMatchObject({
      street: 'sankt joergens alle', houseNumber: '5', floor: 'st', door: 'th', postalCode: '8000',
      city: 'aarhus c', unitKey: 'st|th',
    });
    expect(read('Nørregade 7, kl., 5000 Odense')).toMatchObject({
      street: 'noerregade', houseNumber: '7', floor: 'kl', door: null, postalCode: '5000', city: 'odense',
      unitKey: 'kl|',
    });
  });

  it('a building without floor and door is one unit', () => {
    expect(read('Nørregade 7, 5000 Odense')).toMatchObject({ floor: null, door: null, unitKey: '' });
  });

  // Every variation of §1 gives the same building and unit as its canonical spelling.
  it.each([
    ['Gl. Kongevej 12A, 3. tv, 1610 København V', 'Gammel Kongevej 12 A, 3 tv, 1610 Kobenhavn V'],
    ['Gl. Kongevej 12A, 3. tv, 1610 København V', 'GAMMEL KONGEVEJ 12a 3.tv 1610'],
    ['Gl. Kongevej 12A, 3. tv, 1610 København V', 'gl kongevej 12-a, 3. sal tv, 1610'],
    ['Gl. Kongevej 12A, 3. tv, 1610 København V', 'Gammel Konge Vej 12A, 3 tv, 1610'],
    ['Gl. Kongevej 12A, 3. tv, 1610 København V', 'Gl. Kongevj. 12A, 3. tv, 1610'],
    ['Skt. Jørgens Allé 5, st. th, 8000 Aarhus C', 'Sct. Joergens Alle 5, stuen th, 8000 Aarhus C'],
    ['Skt. Jørgens Allé 5, st. th, 8000 Aarhus C', 'Sankt Jørgens Allé 5 0 th 8000'],
    ['Skt. Jørgens Allé 5, st. th, 8000 Aarhus C', 'Skt Jørgens Alle 5, st, th, 8000'],
    ['Aabenraa Vej 3, 1. mf, 6200 Aabenraa', 'Åbenrå Vej 3, 1. sal mf, 6200 Åbenrå'],
    ['Aabenraavej 3, 1, 6200', 'Åbenråvej 3, 1. sal, 6200'], // one number alone: one unit key (unitKeyOf)
    ['Nørregade 7, kl., 5000 Odense', 'Noerregade 7, kælder, 5000 Odense'],
    ['Nørregade 7, kl, 5000 Odense', 'Nørregade 7 kld 5000'],
    ['Vestergade 2, 2. 3, 5000 Odense', 'Vestergade 2, 2 sal 03, 5000'],
    ['Vestergade 2, 4. b, 5000 Odense', 'Vestergade 2 4 B 5000'],
    ['Vestergade 2, tv, 5000 Odense', 'Vestergade 2, til venstre, 5000'],
    ['Vestergade 2, 1. th, 5000 Odense', 'Vestergade 2, 1. til højre, 5000 Odense, Danmark'],
    ['Nørregade nr. 7, 5000', 'Nørregade 7, 5000 Odense'],
    ['Vestergade 2, 3. tv, 5000', 'Vestergade 2, 3tv, 5000'],
    ['Vestergade 2, st. th, 5000', 'Vestergade 2 stth 5000'],
    ['Vestergade 2, 1. tv, 5000', 'Vestergade 2, 1.t.v., 5000'],
    ['Vestergade 2, st. mf, 5000', 'Vestergade 2, stuen m.f., 5000'],
    ['Vestergade 2, tv, 5000', 'Vestergade 2, t.v., 5000'],
  ])('%j = %j', (a, b) => {
    const left = read(a);
    const right = read(b);
    expect(right.buildingKey).toBe(left.buildingKey);
    expect(right.unitKey).toBe(left.unitKey);
  });

  it.each([
    ['st', 'st'], ['st.', 'st'], ['stuen', 'st'], ['0', 'st'], ['kl', 'kl'], ['kælder', 'kl'],
    ['1.', '1'], ['1. sal', '1'], ['1', '1'], ['12', '12'],
  ])('floor %j → %j', (floor, expected) => {
    expect(read(`Vestergade 2, ${floor} tv, 5000 Odense`).floor).toBe(expected);
  });

  it.each([['tv', 'tv'], ['th', 'th'], ['mf', 'mf'], ['3', '3'], ['0012', '12'], ['b', 'b']])(
    'door %j → %j', (door, expected) => {
      expect(read(`Vestergade 2, 2. ${door}, 5000 Odense`).door).toBe(expected);
    });

  it('a number after "lejl." or "dør" is a door, not a floor', () => {
    expect(read('Vestergade 2, lejl. 12, 5000 Odense')).toMatchObject({ floor: null, door: '12' });
    expect(read('Vestergade 2, 2. sal, dør 3, 5000 Odense')).toMatchObject({ floor: '2', door: '3' });
  });

  it('different house numbers, letters and postal codes are different buildings', () => {
    const base = read('Vestergade 2, 5000 Odense').buildingKey;
    expect(read('Vestergade 2A, 5000 Odense').buildingKey).not.toBe(base);
    expect(read('Vestergade 3, 5000 Odense').buildingKey).not.toBe(base);
    expect(read('Vestergade 2, 5200 Odense V').buildingKey).not.toBe(base);
  });

  it.each([
    '', '?', 'Vestergade', 'Vestergade 2', 'Vestergade, 5000 Odense', '5000 Odense', '12 34 56',
    'Vestergade 2000, 5000', 'Vestergade 0, 5000',
  ])('unreadable: %j', (address) => {
    expect(parseAddress({ address })).toBeNull();
  });
});

describe('parseAddress: the register\'s own forms', () => {
  it.each([
    ['Skeevej 39, Skee, 4370 Store Merløse', '39', null, null, 'skeevej|39|4370'],
    ['Skeevej 39B, st., Skee, 4370 Store Merløse', '39b', 'st', null, 'skeevej|39b|4370'],
    ['Gl. Assensvej 8, Bred, 5492 Vissenbjerg', '8', null, null, 'gammelassensvej|8|5492'],
    ['Tofthøjvej 20, 1, 4130 Viby Sjælland', '20', null, '1', 'tofthoejvej|20|4130'],
    ['Tofthøjvej 20, 1, Skee, 4130 Viby Sjælland', '20', null, '1', 'tofthoejvej|20|4130'],
    ['Tofthøjvej 20, 1. 1, 4130 Viby Sjælland', '20', '1', '1', 'tofthoejvej|20|4130'],
    ['Vestergade 2, stuePlan, 5000 Odense C', '2', 'st', null, 'vestergade|2|5000'],
    ['Vestergade 2, 2. th, Nr. Asmindrup, 4572 Nørre Asmindrup', '2', '2', 'th', 'vestergade|2|4572'],
    ['Vestergade 2, St. Rørbæk, 7100 Vejle', '2', null, null, 'vestergade|2|7100'],
    ['Vestergade 2 st Tved 5700', '2', 'st', null, 'vestergade|2|5700'],
    ['Vestergade 2, k2, 5000 Odense C', '2', 'k2', null, 'vestergade|2|5000'],
    ['Vestergade 2, kld., 5000 Odense C', '2', 'kl', null, 'vestergade|2|5000'],
  ])('%j: house %j, floor %j, door %j', (address, houseNumber, floor, door, buildingKey) => {
    expect(read(address)).toMatchObject({ houseNumber, floor, door, buildingKey });
  });

  it('a floor is written with a full stop, "sal" or a door after it; a number alone is the door', () => {
    expect(read('Vej 5, 3, 5000')).toMatchObject({ floor: null, door: '3' });
    expect(read('Vej 5, 3., 5000')).toMatchObject({ floor: '3', door: null });
    expect(read('Vej 5, 3 sal, 5000')).toMatchObject({ floor: '3', door: null });
    expect(read('Vej 5, 3 tv, 5000')).toMatchObject({ floor: '3', door: 'tv' });
    expect(read('Vej 5, 0, 5000')).toMatchObject({ floor: 'st', door: null }); // §1: "0" is ground
    // The `floor` field of an address in parts is a floor however it is written.
    expect(parseAddress({ street: 'Vej', house_number: '5', floor: '3', postal_code: '5000' }))
      .toMatchObject({ floor: '3', door: null });
  });

  it('floor 1 without a door and door 1 without a floor are one unit: people write both as "1"', () => {
    expect(read('Vej 5, 1, 5000').unitKey).toBe(read('Vej 5, 1., 5000').unitKey);
    expect(read('Vej 5, 1, 5000').unitKey).not.toBe(read('Vej 5, 1. 1, 5000').unitKey);
    expect(read('Vej 5, tv, 5000').unitKey).not.toBe(read('Vej 5, st., 5000').unitKey);
  });

  it('a list member at a supplementary town, written as the register writes it, is level 5', () => {
    const index = buildListIndex([
      { name: 'Hansen,Anne', address: 'Skeevej 39B, st.', postal_code: '4370', city: 'Store Merløse' },
      { name: 'Jensen,Bo', address: 'Tofthøjvej 20, 1.', postal_code: '4130', city: 'Viby Sjælland' },
    ]);
    const options = { policy: 'standard', stopLevel: 5, locale: 'en' } as const;
    const anne = checkPerson(index, { name: 'Anne Hansen', address: 'Skeevej 39B, st., Skee, 4370 Store Merløse' }, options);
    expect(anne.match.level).toBe(5);
    expect(anne.status).toBe('blocked');
    const bo = checkPerson(index, { name: 'Bo Jensen', address: 'Tofthøjvej 20, 1, 4130 Viby Sjælland' }, options);
    expect(bo.match.level).toBe(5);
  });
});

describe('parseAddress: street names with numbers, postal code first', () => {
  it.each([
    ['Christian 9.s Gade 12, 1610 København V', 'christian9sgade|12|1610', ''],
    ["Christian IX's Gade 3, 2. th, 1111 København K", 'christian9sgade|3|1111', '2|th'],
    ["Frederik VII's Vej 12, 1. tv, 1610 København V", 'frederik7svej|12|1610', '1|tv'],
    ["Kong Christian X's Allé 12, 2900 Hellerup", 'kongchristian10salle|12|2900', ''],
    ['Kong Christian 10.s Allé 12 A, st, 2900', 'kongchristian10salle|12a|2900', 'st|'],
    ['Chr. 9.s Gade 12, 1610', 'christian9sgade|12|1610', ''],
  ])('%j → %j', (address, buildingKey, unitKey) => {
    expect(read(address)).toMatchObject({ buildingKey, unitKey });
  });

  it('writes the numeral back as written: roman upper case, the possessive s lower case', () => {
    expect(resolveAddressText("frederik vii's vej 12, 1610 københavn v").formatted)
      .toBe("Frederik VII's Vej 12, 1610 København V");
    expect(resolveAddressText('CHRISTIAN 9.S GADE 3, 1111').formatted).toBe('Christian 9.s Gade 3, 1111');
  });

  it('reads the same street from parts', () => {
    expect(parseAddress({ street: "Christian IX's Gade", house_number: '3', postal_code: '1111' }))
      .toMatchObject({ buildingKey: 'christian9sgade|3|1111' });
  });

  it('an ordinal street without a house number stays unreadable', () => {
    expect(parseAddress({ address: 'Christian 9.s Gade, 1610 København V' })).toBeNull();
  });

  it.each([
    ['1610 København V, Gammel Kongevej 12', 'gammelkongevej|12|1610', '', 'koebenhavn v'],
    ['1610 København V, Gl. Kongevej 12A, 3. tv', 'gammelkongevej|12a|1610', '3|tv', 'koebenhavn v'],
    ['5000, Nørregade 7', 'noerregade|7|5000', '', null],
  ])('postal code first: %j', (address, buildingKey, unitKey, city) => {
    expect(read(address)).toMatchObject({ buildingKey, unitKey, postalCode: buildingKey.slice(-4), city });
  });

  it('postal code first: formatted in the canonical order', () => {
    expect(resolveAddressText('1610 København V, Gammel Kongevej 12, 3. tv').formatted)
      .toBe('Gammel Kongevej 12, 3. tv, 1610 København V');
  });
});

describe('parseAddress: parts, fields and kvhx', () => {
  it('reads parts', () => {
    expect(parseAddress({
      street: 'Gl. Kongevej', house_number: '12 A', floor: '3. sal', door: 'TV', postal_code: '1610',
      city: 'København V',
    })).toMatchObject({ buildingKey: 'gammelkongevej|12a|1610', unitKey: '3|tv', city: 'koebenhavn v' });
  });

  it('reads an address line completed by postal_code and city fields (CSV layout)', () => {
    const parsed = parseAddress({ address: 'Gl. Kongevej 12A, 3. tv', postal_code: '1610', city: 'København V' });
    expect(parsed).toMatchObject({ buildingKey: 'gammelkongevej|12a|1610', unitKey: '3|tv', city: 'koebenhavn v' });
  });

  it('reads a postal_code field holding the city too', () => {
    expect(parseAddress({ street: 'Nørregade', house_number: '7', postal_code: '5000 Odense C' }))
      .toMatchObject({ buildingKey: 'noerregade|7|5000', city: 'odense c' });
  });

  it('reads a street field holding the whole line', () => {
    expect(parseAddress({ street: 'Nørregade 7, 2. th', postal_code: '5000' }))
      .toMatchObject({ buildingKey: 'noerregade|7|5000', unitKey: '2|th' });
  });

  it('gives the same keys for parts and for one string', () => {
    const parts = parseAddress({ street: 'Skt. Jørgens Allé', house_number: '5', floor: 'st', door: 'th', postal_code: '8000' });
    const line = read('Sankt Jørgens Alle 5, stuen th, 8000 Aarhus C');
    expect(parts?.buildingKey).toBe(line.buildingKey);
    expect(parts?.unitKey).toBe(line.unitKey);
  });

  it('reads a kvhx alone', () => {
    expect(parseAddress({ kvhx: '04615319__93__1____' })).toMatchObject({
      buildingKey: null, kvhxBuilding: '04615319__93', kvhxUnit: '__1____', houseNumber: '93', floor: '1',
      door: null,
    });
  });

  it('attaches a kvhx to a text address', () => {
    expect(parseAddress({ address: 'Nørregade 93, 1., 5000 Odense', kvhx: '0461 5319 __93 __1 ____'.replace(/ /g, '') }))
      .toMatchObject({ buildingKey: 'noerregade|93|5000', kvhxBuilding: '04615319__93' });
  });

  it('is unreadable without street, number and postal code, and without a valid kvhx', () => {
    expect(parseAddress({ street: 'Nørregade', postal_code: '5000' })).toBeNull();
    expect(parseAddress({ street: 'Nørregade', house_number: '7' })).toBeNull();
    expect(parseAddress({ kvhx: 'not a kvhx' })).toBeNull();
    expect(parseAddress({})).toBeNull();
  });
});

describe('resolveAddressText (§13 parse-only mode)', () => {
  it('writes the canonical Danish form, confidence unresolved', () => {
    expect(resolveAddressText('gl. kongevej 12a, 3 sal tv 1610 københavn v')).toEqual({
      input: 'gl. kongevej 12a, 3 sal tv 1610 københavn v',
      ok: true,
      street: 'Gammel Kongevej',
      house_number: '12A',
      floor: '3',
      door: 'tv',
      postal_code: '1610',
      city: 'København V',
      formatted: 'Gammel Kongevej 12A, 3. tv, 1610 København V',
      confidence: 'unresolved',
    });
  });

  it.each([
    ['Skt. Jørgens Allé 5 st th 8000 Aarhus C', 'Sankt Jørgens Allé 5, st. th, 8000 Aarhus C'],
    ['Nørregade 7, kl., 5000 Odense', 'Nørregade 7, kl., 5000 Odense'],
    ['H.C. Andersens Boulevard 27, 1553 København V', 'H.C. Andersens Boulevard 27, 1553 København V'],
    ['NØRREGADE 7 5000', 'Nørregade 7, 5000'],
    ['Vestergade 2, tv, 5000 Odense', 'Vestergade 2, tv, 5000 Odense'],
  ])('%j → %j', (input, formatted) => {
    expect(resolveAddressText(input).formatted).toBe(formatted);
  });

  it('says ok false and nothing else for an unreadable text', () => {
    expect(resolveAddressText('?')).toEqual({
      input: '?', ok: false, street: null, house_number: null, floor: null, door: null, postal_code: null,
      city: null, formatted: null, confidence: 'unresolved',
    });
  });
});
