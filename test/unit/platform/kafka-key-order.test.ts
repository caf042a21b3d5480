import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createKeyOrder } from '../../../services/platform/log/kafka.ts';

/** Whether `promise` has settled once every pending callback ran (no time passes, no timer). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => { done = true; });
  await turn();
  return done;
}

const message = (key: string | null) => ({ key });

describe('Kafka publishes in flight: per-key order (services/platform/log/kafka.ts createKeyOrder)', () => {
  it('a publish of a key waits for the earlier one of that key; other keys, other topics and null keys do not wait', async () => {
    const order = createKeyOrder();
    const first = order.take('rows', [message('job:0'), message('job:1')]);
    const sameKey = order.take('rows', [message('job:1'), message('job:2')]);
    const otherKeys = order.take('rows', [message('job:3'), message('job:4')]);
    const otherTopic = order.take('results', [message('job:1')]);
    const nullKeys = order.take('rows', [message(null), message(null)]);
    expect(await settled(first.ready)).toBe(true);
    expect(await settled(otherKeys.ready)).toBe(true);
    expect(await settled(otherTopic.ready)).toBe(true);
    expect(await settled(nullKeys.ready)).toBe(true);
    expect(await settled(sameKey.ready), 'job:1 is still in flight in the first publish').toBe(false);
    first.done();
    expect(await settled(sameKey.ready)).toBe(true);
    for (const t of [sameKey, otherKeys, otherTopic, nullKeys]) t.done();
    expect(order.size, 'nothing is kept once every publish settled').toBe(0);
  });

  it('a chain of publishes of one key goes one after the other, in the order they were called', async () => {
    const order = createKeyOrder();
    const turns = Array.from({ length: 5 }, () => order.take('jobs', [message('job')]));
    const started: number[] = [];
    const running = turns.map((t, i) => t.ready.then(() => { started.push(i); }));
    for (let i = 0; i < turns.length; i++) {
      await turn();
      expect(started, `only publish ${i} may go before ${i} is done`).toEqual(Array.from({ length: i + 1 }, (_, j) => j));
      turns[i].done();
    }
    await Promise.all(running);
    expect(order.size).toBe(0);
  });

  it('a publish waiting for several earlier ones goes once all of them settled', async () => {
    const order = createKeyOrder();
    const a = order.take('rows', [message('a')]);
    const b = order.take('rows', [message('b')]);
    const both = order.take('rows', [message('a'), message('b')]);
    a.done();
    expect(await settled(both.ready), 'b is still in flight').toBe(false);
    b.done();
    expect(await settled(both.ready)).toBe(true);
    both.done();
    expect(order.size).toBe(0);
  });
});
