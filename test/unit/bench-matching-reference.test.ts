import { describe, expect, it } from 'vitest';
import type { PersonInput } from '../../services/domain/types.ts';
import { BUILD_GOAL_RATIO, interleavedRates, MATCHING_GOAL_RATIO } from '../bench/matching-reference.ts';

// Loading the reference code itself (git archive of 1bad6d9) is left to the benches that use it:
// a test here would need the clone's full history.
describe('the matching goals as ratios to the code they were set on (test/bench/matching-reference.ts)', () => {
  it('states the goals as the reported figures divided: 200,000 / 241,014 and 20 s / 9.5 s', () => {
    expect(MATCHING_GOAL_RATIO).toBe(0.83);
    expect(BUILD_GOAL_RATIO).toBe(2.11);
  });

  it('gives every contender every input equally often, the order of contenders shuffled chunk by chunk', () => {
    const inputs: PersonInput[] = Array.from({ length: 120_000 }, (_, i) => ({ id: String(i) }));
    const calls = [0, 0, 0];
    const chunkStarts: number[] = []; // the contender that began each visit of a chunk, in order
    const contenders = [0, 1, 2].map((c) => ({
      check(person: PersonInput) {
        if (Number(person.id) % 50_000 === 0) chunkStarts.push(c);
        calls[c]++;
      },
    }));
    const { wall, cpu } = interleavedRates(contenders, inputs, 0);
    expect(calls[0]).toBeGreaterThanOrEqual(6 * inputs.length); // warm-up + at least 5 rounds
    expect(calls[1]).toBe(calls[0]);
    expect(calls[2]).toBe(calls[0]);
    // After the warm-up (each contender over all 3 chunks), every chunk is visited by the 3 in turn.
    const firsts = new Set<number>();
    for (let i = 9; i < chunkStarts.length; i += 3) {
      expect(new Set(chunkStarts.slice(i, i + 3)).size).toBe(3);
      firsts.add(chunkStarts[i]);
    }
    expect(firsts.size).toBe(3);
    for (const rate of [...wall, ...cpu]) expect(rate).toBeGreaterThan(0);
  });
});
