import { describe, expect, it } from 'vitest';
import { createCursorSeal, InvalidSealError } from '../../../services/platform/keys/cursor-seal.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';

const JOB = '6f1c1f8e-35a4-4a59-9d49-0c1b0b6c9f01';
const OTHER = '0b0b1f8e-35a4-4a59-9d49-0c1b0b6c9f02';

describe('cursor seal (HMAC)', () => {
  it('opens its own cursors; refuses another job, an edited cursor, an edited MAC', async () => {
    const seal = createCursorSeal({ keyring: createEmbeddedKeyRing(openEmbeddedDatabase(':memory:')) });
    const sealed = await seal.seal(JOB, 'cjEuYWJjLjQ5');
    expect(await seal.open(JOB, sealed)).toBe('cjEuYWJjLjQ5');
    await expect(seal.open(OTHER, sealed)).rejects.toThrow(InvalidSealError);
    const [cursor, kid, mac] = sealed.split('.');
    await expect(seal.open(JOB, `${cursor.replace('5', '6')}.${kid}.${mac}`)).rejects.toThrow(InvalidSealError);
    await expect(seal.open(JOB, `${cursor}.${kid}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`)).rejects.toThrow(InvalidSealError);
    await expect(seal.open(JOB, `${cursor}.unknown.${mac}`)).rejects.toThrow(InvalidSealError);
    await expect(seal.open(JOB, cursor)).rejects.toThrow(InvalidSealError);
  });

  it("two API processes on one store accept each other's cursors, even when both made a first key", async () => {
    const keyring = createEmbeddedKeyRing(openEmbeddedDatabase(':memory:'));
    const a = createCursorSeal({ keyring });
    const b = createCursorSeal({ keyring });
    const [fromA, fromB] = await Promise.all([a.seal(JOB, 'eA'), b.seal(JOB, 'eB')]);
    expect(await b.open(JOB, fromA)).toBe('eA');
    expect(await a.open(JOB, fromB)).toBe('eB');
  });

  it('a configured secret: processes sharing it agree; another secret refuses', async () => {
    const secret = 'x'.repeat(40);
    const a = createCursorSeal({ keyring: createEmbeddedKeyRing(openEmbeddedDatabase(':memory:')), configured: secret });
    const b = createCursorSeal({ keyring: createEmbeddedKeyRing(openEmbeddedDatabase(':memory:')), configured: secret });
    const c = createCursorSeal({ keyring: createEmbeddedKeyRing(openEmbeddedDatabase(':memory:')), configured: 'y'.repeat(40) });
    const sealed = await a.seal(JOB, 'eA');
    expect(await b.open(JOB, sealed)).toBe('eA');
    await expect(c.open(JOB, sealed)).rejects.toThrow(InvalidSealError);
  });
});
