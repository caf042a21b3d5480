/**
 * The matching goals as same-run ratios. The domain bench's goals were set as absolute figures
 * from one report (commit REFERENCE_COMMIT: 241,014 rows/s, a 9.5 s index build), and the same
 * commit measures less than half that on another machine of the same kind (109,488 rows/s). So the
 * benches run that commit's matching code itself, in the same process, on the same inputs, and
 * judge the goal as a ratio to it: matching must reach 200,000 / 241,014 of what the reference
 * code does here and now, the build at most 20 / 9.5 of the reference's build.
 *
 * The reference code is the commit's services/domain (pure: no dependencies), taken from git
 * history (`git archive`) into a temporary directory and imported like any module.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeText } from '../../services/domain/index.ts';
import { addressInputOf } from '../../services/domain/resolve.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../services/domain/types.ts';

export const REFERENCE_COMMIT = '1bad6d9785250e562a264756fa9674d2fbeb9751';
/** What the reference's report measured, and the goals set from it. */
export const REFERENCE_REPORTED_RATE = 241_014;
export const MATCHING_GOAL_RATE = 200_000;
export const REFERENCE_REPORTED_BUILD_SECONDS = 9.5;
export const BUILD_GOAL_SECONDS = 20;
/** The goals as multiples of the reference measured in the same run. */
export const MATCHING_GOAL_RATIO = Math.round((MATCHING_GOAL_RATE / REFERENCE_REPORTED_RATE) * 100) / 100; // 0.83
export const BUILD_GOAL_RATIO = Math.round((BUILD_GOAL_SECONDS / REFERENCE_REPORTED_BUILD_SECONDS) * 100) / 100; // 2.11

/** The two functions of the reference's domain the benches call (their shapes are unchanged since). */
export interface ReferenceMatcher {
  buildListIndex(entries: Iterable<ListEntry>): unknown;
  checkPerson(index: unknown, person: PersonInput, options: CheckOptions): { status: string };
}

/** Imports the reference commit's services/domain from `dir`; `dispose` removes that copy. */
export async function loadReferenceMatcher(): Promise<{ matcher: ReferenceMatcher; dir: string; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-reference-'));
  try {
    const archive = execFileSync('git', ['archive', REFERENCE_COMMIT, 'services/domain'], { maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    const matcher = (await import(join(dir, 'services/domain/index.ts'))) as ReferenceMatcher;
    return { matcher, dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the reference matching code (${REFERENCE_COMMIT.slice(0, 7)}) could not be loaded from git history: ${(error as Error).message}`);
  }
}

export interface Contender {
  check(person: PersonInput): unknown;
  /**
   * Each person of a chunk, checked as one batch, when the contender has a batch check (checkPeople:
   * what the service runs for a request's or a job chunk's rows); otherwise `check` per person.
   */
  checkAll?(people: PersonInput[]): unknown;
}

function run(contender: Contender, people: PersonInput[]): void {
  if (contender.checkAll) contender.checkAll(people);
  else for (const person of people) contender.check(person);
}

/**
 * Rows per second of each contender over the same inputs, in chunks of CHUNK inputs, every chunk
 * run by every contender in a random order: all see the same load, and none gains by going first
 * or last (in a fixed order, two copies of the same code differed by 2.6 %; shuffled, by 0.7 %).
 * A chunk is long (about half a second) because each contender starts it with caches the others
 * filled: with chunks of 5,000 that refill was a share of every chunk's time and pulled the
 * ratios towards 1 (the register path measured 0.85× the reference, against ~0.8× in whole passes).
 * Wall clock and this process's CPU time, each summed over at least `minSeconds` of rounds.
 */
export function interleavedRates(
  contenders: Contender[], inputs: PersonInput[], minSeconds: number,
): { wall: number[]; cpu: number[] } {
  const CHUNK = 50_000;
  const wallMs = contenders.map(() => 0);
  const cpuUs = contenders.map(() => 0);
  let rows = 0;
  let seed = 1;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (const contender of contenders) run(contender, inputs); // warm-up
  const started = performance.now();
  while (performance.now() - started < minSeconds * 1000 * contenders.length || rows < 5 * inputs.length) {
    for (let from = 0; from < inputs.length; from += CHUNK) {
      const chunk = inputs.slice(from, from + CHUNK);
      const order = contenders.map((_, i) => i).sort(() => random() - 0.5);
      for (const i of order) {
        const wall = performance.now();
        const cpu = process.cpuUsage();
        run(contenders[i], chunk);
        const used = process.cpuUsage(cpu);
        cpuUs[i] += used.user + used.system;
        wallMs[i] += performance.now() - wall;
      }
    }
    rows += inputs.length;
  }
  return { wall: wallMs.map((ms) => rows / (ms / 1000)), cpu: cpuUs.map((us) => rows / (us / 1e6)) };
}

/**
 * The key of the matching goal's baseline, a Map lookup of a normalised key (domain.bench.ts and
 * match-driver.ts `MATCH_MAP`): the normalised name and address text, joined.
 */
export function normalisedKey(person: PersonInput | ListEntry): string {
  const name = person.name ?? `${person.first_name ?? ''} ${person.last_name ?? ''}`;
  return normalizeText(name) + '|' + normalizeText(addressInputOf(person));
}
