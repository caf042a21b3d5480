/**
 * Files are read a bounded number at a time (docs/files.md "Limits"): of five reads asked for at
 * once with two slots, two run, the others wait in arrival order and start as slots come free;
 * a failed read frees its slot too.
 */
import { describe, expect, it } from 'vitest';
import { createParseSlots } from '../../../services/ingest/uploads/parse-slots.ts';

describe('files read at once are bounded', () => {
  it('two slots: two reads run, three wait their turn in order; a failure frees its slot', async () => {
    const slots = createParseSlots(2);
    const started: number[] = [];
    const release: Array<(fail?: boolean) => void> = [];
    const reads = Array.from({ length: 5 }, (_, i) => slots.run(() => new Promise<number>((resolve, reject) => {
      started.push(i);
      release[i] = (fail) => (fail ? reject(new Error(`read ${i} failed`)) : resolve(i));
    })));
    const settle = () => new Promise((r) => setImmediate(r));
    await settle();
    expect(started).toEqual([0, 1]);
    expect(slots.running).toBe(2);
    release[1](true);
    await expect(reads[1]).rejects.toThrow('read 1 failed');
    await settle();
    expect(started).toEqual([0, 1, 2]);
    release[0]();
    release[2]();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(slots.running).toBe(2);
    release[3]();
    release[4]();
    expect(await Promise.all([reads[0], reads[2], reads[3], reads[4]])).toEqual([0, 2, 3, 4]);
    expect(slots.running).toBe(0);
  });
});
