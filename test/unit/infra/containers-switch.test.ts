import { describe, expect, it } from 'vitest';
import { containerSuitesEnabled } from '../../support/containers.ts';

/**
 * The one switch of the container suites (docs/deployment.md "Tests: infra/local or
 * containers"): explicit 1/0 win, CI turns them on (a missing engine then fails them), anything
 * else is refused rather than guessed.
 */
describe('ROBINSON_TESTCONTAINERS', () => {
  const noEngine = { DOCKER_HOST: 'unix:///nonexistent/docker.sock' };

  it('1 runs the container suites, 0 leaves them out, also under CI', () => {
    expect(containerSuitesEnabled({ ...noEngine, ROBINSON_TESTCONTAINERS: '1' })).toBe(true);
    expect(containerSuitesEnabled({ ...noEngine, ROBINSON_TESTCONTAINERS: '0', CI: 'true' })).toBe(false);
  });

  it('unset: on under CI=true even without an engine (the suites then fail), off without CI and engine', () => {
    expect(containerSuitesEnabled({ ...noEngine, CI: 'true' })).toBe(true);
    expect(containerSuitesEnabled({ ...noEngine })).toBe(false);
    expect(containerSuitesEnabled({ ...noEngine, ROBINSON_TESTCONTAINERS: '' })).toBe(false);
  });

  it('refuses any other value, naming it', () => {
    expect(() => containerSuitesEnabled({ ROBINSON_TESTCONTAINERS: 'yes' })).toThrow(/must be 1, 0 or unset, not "yes"/);
  });
});
