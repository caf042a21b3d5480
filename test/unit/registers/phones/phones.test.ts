import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalisePhone, type DirectoryEntry } from '../../../../services/domain/index.ts';
import { createActiveRegister } from '../../../../services/registers/companies/active-register.ts';
import { activateRegister, RegisterImportError } from '../../../../services/registers/companies/register-import.ts';
import { createPhoneIndexBuilder, type PhoneIndex } from '../../../../services/domain/phone.ts';
import { importDirectoryFile, DirectoryFileError } from '../../../../services/registers/phones/directory-csv.ts';
import { DirectoryUnavailableError } from '../../../../services/registers/phones/directory-port.ts';
import { createFileDirectory } from '../../../../services/registers/phones/file-directory.ts';
import { createHttpDirectory } from '../../../../services/registers/phones/http-directory.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedRegisterStore } from '../../../../services/platform/store/embedded/registers.ts';
import { startFakeDirectory, type FakeDirectory } from '../../../support/fake-phone-directory.ts';

const logger = silentLogger();

describe('phone normalisation', () => {
  // Real written forms of Danish numbers (mobile 20.., landline 33.., 70.. service, 80/90) and foreign ones.
  it.each([
    ['20123456', '+4520123456'],
    ['20 12 34 56', '+4520123456'],
    ['2012 3456', '+4520123456'],
    ['20-12-34-56', '+4520123456'],
    ['+45 20 12 34 56', '+4520123456'],
    ['+4520123456', '+4520123456'],
    ['0045 7012 3456', '+4570123456'],
    ['(+45) 40-12-34-56', '+4540123456'],
    ['45 20 12 34 56', '+4520123456'],
    ['+45 33 12 34 56', '+4533123456'],
    ['80 20 30 40', '+4580203040'],
    ['90 12 34 56', '+4590123456'],
    ['  20123456\t', '+4520123456'],
    ['tel:+4520123456', '+4520123456'],
    ['+46 8 123 456 78', '+46812345678'],
    ['+44 20 7946 0958', '+442079460958'],
  ])('%j → %s', (text, e164) => {
    expect(normalisePhone(text)).toBe(e164);
  });

  it.each([['12345678'], ['112'], ['1234'], ['abc'], [''], ['+45 2012345'], ['+45 201234567'], ['2'.repeat(65)]])('%j is not a number', (text) => {
    expect(normalisePhone(text)).toBeNull();
  });

  const phoneLike = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.array(fc.constantFrom('+', '45', '00', '(', ')', ' ', '-', '.', '2', '0', '1', '3', '4', '9', 'tel:', 'ext'), { maxLength: 20 }).map((p) => p.join('')),
    fc.stringMatching(/^\+?\d{6,14}$/),
  );

  it('never throws, and answers null or E.164', () => {
    fc.assert(fc.property(fc.oneof(phoneLike, fc.anything()), (value) => {
      const out = normalisePhone(value);
      expect(out === null || /^\+[1-9]\d{6,14}$/.test(out)).toBe(true);
    }), { numRuns: 3000 });
  });

  it('is idempotent: a normalised number normalises to itself', () => {
    fc.assert(fc.property(phoneLike, (text) => {
      const once = normalisePhone(text);
      if (once !== null) expect(normalisePhone(once)).toBe(once);
    }), { numRuns: 3000 });
  });
});

const entries: DirectoryEntry[] = [
  { number: '+4520123456', name: 'Anne Hansen', address: 'Gl. Kongevej 12A, 3. tv, 1610 København V', listed: true },
  { number: '+4533123456', name: 'Hemmelig Person', address: 'Skjult 1, 8000 Aarhus C', listed: false },
];

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

describe('phone directory: file adapter', () => {
  it('imports a CSV (Danish headers, ; separator, quotes, any number form) and finds numbers in E.164', async () => {
    const store = createEmbeddedRegisterStore(openEmbeddedDatabase(':memory:'));
    const csv = 'Nummer;Navn;Adresse;Synlig\r\n20 12 34 56;Anne Hansen;"Gl. Kongevej 12A, 3. tv, 1610 København V";ja\r\n+45 33-12-34-56;Hemmelig Person;"Skjult 1, 8000 Aarhus C";nej\r\n';
    const { version } = await importDirectoryFile({ store, logger }, { chunks: bytes(csv) });
    expect(version.record_count).toBe(2);
    const active = createActiveRegister<DirectoryEntry, PhoneIndex>({ store, kind: 'phones', logger, createBuilder: createPhoneIndexBuilder });
    const directory = createFileDirectory(active);
    await expect(directory.lookup(['+4520123456'])).rejects.toBeInstanceOf(DirectoryUnavailableError);
    await activateRegister({ store, logger }, version.id);
    await active.refresh();
    const answers = await directory.lookup(['+4520123456', '+4533123456', '+4599999999']);
    expect(Object.fromEntries(answers)).toEqual({ '+4520123456': entries[0], '+4533123456': entries[1], '+4599999999': null });
  });

  it('refuses bad rows with line numbers and reasons only; a header without the columns is refused', async () => {
    const store = createEmbeddedRegisterStore(openEmbeddedDatabase(':memory:'));
    const csv = 'number,name,address,listed\n1234,Søren Hemmelig,Vej 1,ja\n20123456,,Vej 1,ja\n20123457,Bo,Vej 2,måske\n20123458,Bo,"Vej 3,true\n';
    const error = await importDirectoryFile({ store, logger }, { chunks: bytes(csv) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegisterImportError);
    expect((error as Error).message).toMatch(/line 2: bad_number; line 3: no_name; line 4: bad_listed; line 5: bad_quotes/);
    expect((error as Error).message).not.toContain('Hemmelig');
    await expect(importDirectoryFile({ store, logger }, { chunks: bytes('a,b\n1,2\n') })).rejects.toBeInstanceOf(DirectoryFileError);
  });
});

describe('phone directory: HTTP adapter against a fake directory server (test double) on loopback', () => {
  let fake: FakeDirectory;
  beforeAll(async () => {
    fake = await startFakeDirectory('secret-key', entries);
  });
  afterAll(async () => fake.close());

  it('asks each number once with the key, and answers entries and nulls', async () => {
    const directory = createHttpDirectory({ url: `${fake.url}/`, key: 'secret-key', concurrency: 3 });
    const answers = await directory.lookup(['+4520123456', '+4533123456', '+4599999999', '+4520123456']);
    expect(Object.fromEntries(answers)).toEqual({ '+4520123456': entries[0], '+4533123456': entries[1], '+4599999999': null });
    expect(fake.requests.filter((r) => r === '/numbers/%2B4520123456')).toHaveLength(1);
  });

  it('fails the whole lookup on a wrong key, a provider error or no server: never "not found"', async () => {
    await expect(createHttpDirectory({ url: fake.url, key: 'wrong' }).lookup(['+4520123456'])).rejects.toBeInstanceOf(DirectoryUnavailableError);
    fake.failing.add('+4533123456');
    await expect(createHttpDirectory({ url: fake.url, key: 'secret-key' }).lookup(['+4520123456', '+4533123456'])).rejects.toThrow(/HTTP 500/);
    fake.failing.clear();
    await expect(createHttpDirectory({ url: 'http://127.0.0.1:9', key: 'k', timeoutMs: 500 }).lookup(['+4520123456'])).rejects.toBeInstanceOf(DirectoryUnavailableError);
  });
});

describe('compact phone index', () => {
  it('finds every number, confirms against the number itself, and a number listed twice keeps the later entry', () => {
    const builder = createPhoneIndexBuilder();
    const entries: DirectoryEntry[] = Array.from({ length: 5000 }, (_, i) => ({
      number: `+452${String(i).padStart(7, '0')}`, name: `Navn ${i} Ærø`, address: `Vej ${i}, 8000 Aarhus C`, listed: i % 3 !== 0,
    }));
    for (const e of entries) builder.add(e);
    builder.add({ ...entries[7], name: 'Ny Ejer', listed: true });
    const index = builder.build();
    for (const e of entries.slice(0, 7)) expect(index.get(e.number)).toEqual(e);
    expect(index.get(entries[7].number)).toEqual({ ...entries[7], name: 'Ny Ejer', listed: true });
    expect(index.get(entries[4999].number)).toEqual(entries[4999]);
    expect(index.get('+4599999999')).toBeUndefined();
    expect(index.size).toBe(5001);
  });
});
