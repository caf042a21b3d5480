import { afterAll, beforeAll } from 'vitest';

/**
 * Opens an adapter once for a suite and hands it to each test. When opening fails (a server is
 * missing), every test of the suite fails with that error instead of being reported as skipped.
 */
export function useHarness<T extends { close(): Promise<void> }>(open: () => Promise<T>): () => T {
  let harness: T | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      harness = await open();
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    if (failure !== undefined) throw failure;
    if (!harness) throw new Error('adapter harness not opened');
    return harness;
  };
}
