import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAddress, unitKeyOf } from '../../../services/domain/index.ts';

/**
 * Parsing against a corpus of real addresses with the register's own fields
 * (test/fixtures/addresses/real-addresses.tsv: DAR 1.0 rows from DAWA's public test data and DAWA
 * `betegnelse` examples; the file names its sources). Agreement = house number, postal code and
 * unit identical to the register's; the unit is compared as matching compares it (unitKeyOf: a
 * unit named by one number is one unit whether written as floor or door), and the field-for-field
 * floor/door agreement is printed beside it (DAR's internal text writes a floor without its full
 * stop, which the register's official form never does).
 */
interface Row { source: string; text: string; house: string; postal: string; floor: string; door: string }

const rows: Row[] = readFileSync(new URL('../../fixtures/addresses/real-addresses.tsv', import.meta.url), 'utf8')
  .split('\n').filter((line) => line !== '' && !line.startsWith('#')).slice(1)
  .map((line) => {
    const [source, text, house, postal, floor, door] = line.split('\t');
    return { source, text, house, postal, floor, door };
  });

/** The register's floor/door as the parser spells them ("TV" → "tv", "st" → "st"). */
function registerUnit(floor: string, door: string): { floor: string | null; door: string | null } {
  const parsed = parseAddress({ street: 'x', house_number: '1', floor, door, postal_code: '0000' });
  return { floor: parsed?.floor ?? null, door: parsed?.door ?? null };
}

describe('parsing a corpus of real addresses', () => {
  it('agrees with the register on ≥ 99.5 % (house number, postal code, unit)', () => {
    let house = 0;
    let postal = 0;
    let unit = 0;
    let fields = 0;
    let all = 0;
    const disagreements: string[] = [];
    for (const row of rows) {
      const parsed = parseAddress({ address: row.text });
      const expected = registerUnit(row.floor, row.door);
      const okHouse = parsed?.houseNumber === row.house.toLowerCase();
      const okPostal = parsed?.postalCode === row.postal;
      const okUnit = parsed !== null && parsed.unitKey === unitKeyOf(expected.floor, expected.door);
      if (okHouse) house++;
      if (okPostal) postal++;
      if (okUnit) unit++;
      if (parsed?.floor === expected.floor && parsed?.door === expected.door) fields++;
      if (okHouse && okPostal && okUnit) all++;
      else disagreements.push(`${row.source}: ${row.text} → ${JSON.stringify(parsed && { h: parsed.houseNumber, p: parsed.postalCode, f: parsed.floor, d: parsed.door })}`);
    }
    const pct = (n: number) => `${((100 * n) / rows.length).toFixed(1)}%`;
    console.log(
      `Real-address corpus: ${rows.length} addresses (${rows.filter((r) => r.source === 'dar10').length} DAR rows, ` +
        `${rows.filter((r) => r.source === 'dawa').length} DAWA examples); agreement with the register: house number ` +
        `${pct(house)}, postal code ${pct(postal)}, unit ${pct(unit)}, all three ${pct(all)}; floor and door field for ` +
        `field ${pct(fields)}${disagreements.length > 0 ? `\n${disagreements.join('\n')}` : ''}`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(100);
    expect(all / rows.length, disagreements.join('\n')).toBeGreaterThanOrEqual(0.995);
  });
});
