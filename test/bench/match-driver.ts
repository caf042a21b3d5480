/**
 * The check path alone, for making it faster without changing an answer (docs/matching.md "Speed
 * of the check path"): builds a 200,000-entry list index without and with an address register,
 * hashes every answer to 100,000 mixed inputs (list members as customers write them, members with a
 * slip in the surname, non-members, people on streets the list does not know), then times the
 * check on the same inputs, each matcher as the service runs it (its batch check when it has one).
 *
 *   node test/bench/match-driver.ts                 hashes, then rows/s of this code
 *   MATCH_BASE=<commit> node test/bench/match-driver.ts
 *                                                   also the services/domain of <commit> (from git
 *                                                   history), interleaved with this code on the
 *                                                   same inputs: the ratio is the A/B figure
 *   node --cpu-prof test/bench/match-driver.ts      a CPU profile of the timed passes
 *   MATCH_MAP=1 node test/bench/match-driver.ts     also the domain bench's baseline, a Map lookup of
 *                                                   a normalised key, interleaved with this code on
 *                                                   the same inputs (no register): the goal's ratio
 *                                                   without the whole bench (MATCH_ENTRIES=2000000
 *                                                   for the bench's list size)
 *
 * Not part of `npm run bench` (no .bench.ts): a tool for the person changing the check path.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildAddressRegister, buildListIndex, checkPeople, checkPerson, type ListIndex,
} from '../../services/domain/index.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../services/domain/types.ts';
import {
  createRng, generateListEntries, generatePeople, generatePeopleOnUnknownStreets, variantOf,
} from '../../services/synthetic/index.ts';
import { generateRegisterAddresses } from '../../services/synthetic/register.ts';
import { slip } from '../support/matching-corpus.ts';
import { interleavedRates, normalisedKey, type Contender } from './matching-reference.ts';

const ENTRIES = Number(process.env.MATCH_ENTRIES ?? 200_000);
const INPUTS = 100_000;
const SEED = 'match-driver';
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };
/** Register units: enough of the synthetic country that most members' buildings are in it, not all. */
const REGISTER_UNITS = Number(process.env.MATCH_REGISTER_UNITS ?? 600_000);
const SECONDS = Number(process.env.MATCH_SECONDS ?? 4);
/** Rows per batch call where timed: a job chunk's (services/ingest/jobs/intake.ts DEFAULT_CHUNK_ROWS), as in domain.bench.ts. */
const CALL_ROWS = 2_000;

interface Matcher {
  buildAddressRegister: typeof buildAddressRegister;
  buildListIndex(entries: Iterable<ListEntry>, register?: unknown): unknown;
  checkPerson(index: unknown, person: PersonInput, options: CheckOptions): unknown;
  /** The batch check the service runs (check.ts checkPeople); code from before it has none. */
  checkPeople?(index: unknown, people: readonly PersonInput[], options: CheckOptions): unknown[];
}

/** The matcher's check as the service runs it: its batch check when it has one, else person by person. */
function contenderOf(matcher: Matcher, index: unknown): Contender {
  const { checkPeople: batch } = matcher;
  return {
    check: (person) => matcher.checkPerson(index, person, OPTIONS),
    ...(batch ? {
      checkAll: (people: PersonInput[]) => {
        for (let from = 0; from < people.length; from += CALL_ROWS) batch(index, people.slice(from, from + CALL_ROWS), OPTIONS);
      },
    } : {}),
  };
}

function inputsOf(entries: ListEntry[]): PersonInput[] {
  const rng = createRng(`${SEED}:inputs`);
  const quarter = INPUTS / 4;
  const members: PersonInput[] = [];
  const slipped: PersonInput[] = [];
  const step = Math.floor(entries.length / quarter);
  for (let i = 0; i < quarter; i++) {
    const member = variantOf(entries[i * step], rng);
    members.push(member);
    const words = (member.name ?? '').split(' ');
    const surname = words.at(-1) ?? '';
    const changed = surname.includes(',') ? null : slip(surname, rng);
    slipped.push(changed === null ? member : { ...member, name: [...words.slice(0, -1), changed].join(' ') });
  }
  const all = [...members, ...slipped, ...generatePeople(quarter, SEED), ...generatePeopleOnUnknownStreets(quarter, SEED)];
  for (let i = all.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all;
}

function answersHash(matcher: Matcher, index: unknown, inputs: PersonInput[]): string {
  const hash = createHash('sha256');
  const answers = matcher.checkPeople?.(index, inputs, OPTIONS) ?? inputs.map((person) => matcher.checkPerson(index, person, OPTIONS));
  for (const answer of answers) hash.update(JSON.stringify(answer) + '\n');
  return hash.digest('hex');
}

async function baseMatcher(commit: string): Promise<{ matcher: Matcher; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'match-base-'));
  const archive = execFileSync('git', ['archive', commit, 'services/domain'], { maxBuffer: 64 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  // services/domain/phone.ts imports libphonenumber-js: the copy resolves packages from this checkout.
  symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(dir, 'node_modules'));
  const matcher = (await import(join(dir, 'services/domain/index.ts'))) as Matcher;
  return { matcher, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

const current: Matcher = {
  buildAddressRegister, buildListIndex: buildListIndex as Matcher['buildListIndex'], checkPerson, checkPeople,
};
const entries = [...generateListEntries(ENTRIES, SEED)];
const inputs = inputsOf(entries);
const register = buildAddressRegister(generateRegisterAddresses(REGISTER_UNITS));
const plain = buildListIndex(entries);
const withRegister: ListIndex = buildListIndex(entries, register);
console.log(`answers, no register:   ${answersHash(current, plain, inputs)}`);
console.log(`answers, with register: ${answersHash(current, withRegister, inputs)}`);

const base = process.env.MATCH_BASE ? await baseMatcher(process.env.MATCH_BASE) : null;
for (const [label, index, baseIndex] of [
  ['no register', plain, base?.matcher.buildListIndex(entries)],
  ['with register', withRegister, base?.matcher.buildListIndex(entries, base.matcher.buildAddressRegister(generateRegisterAddresses(REGISTER_UNITS)))],
] as const) {
  const contenders: Contender[] = [contenderOf(current, index)];
  if (base) contenders.push(contenderOf(base.matcher, baseIndex));
  const rates = interleavedRates(contenders, inputs, SECONDS);
  const line = `${label}: ${Math.round(rates.wall[0])} rows/s`;
  console.log(base
    ? `${line}, base ${Math.round(rates.wall[1])}: ${(rates.wall[0] / rates.wall[1]).toFixed(3)}× wall, ${(rates.cpu[0] / rates.cpu[1]).toFixed(3)}× CPU`
    : line);
}
base?.dispose();

if (process.env.MATCH_MAP) {
  // The domain bench's baseline (matching-reference.ts `normalisedKey`, docs/matching.md "Speed of the
  // check path"): the normalised name and address text joined, looked up in a Map of the list's keys.
  const keys = new Map<string, number>();
  for (const entry of entries) keys.set(normalisedKey(entry), keys.size);
  let hits = 0;
  const rates = interleavedRates([
    contenderOf(current, plain),
    { check: (person) => { if (keys.has(normalisedKey(person))) hits++; } },
  ], inputs, SECONDS);
  console.log(`no register against a Map lookup of a normalised key (${hits > 0 ? 'with' : 'no'} hits): `
    + `${Math.round(rates.wall[0])} / ${Math.round(rates.wall[1])} rows/s, `
    + `${(rates.wall[0] / rates.wall[1]).toFixed(3)}× wall, ${(rates.cpu[0] / rates.cpu[1]).toFixed(3)}× CPU`);
}
