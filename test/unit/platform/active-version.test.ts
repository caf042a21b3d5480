import { describe, expect, it } from 'vitest';
import { activationOf, createActiveVersionHolder } from '../../../services/platform/active-version.ts';

/** A version store in memory: which version is active and how often each was built. */
function versions() {
  const builds = new Map<string, number>();
  let active: { id: string; activated_at: string | null } | null = null;
  let failNext = false;
  const holder = createActiveVersionHolder<string, { id: string; built: string }>({
    async build(key) {
      builds.set(key, (builds.get(key) ?? 0) + 1);
      if (failNext) {
        failNext = false;
        throw new Error(`build of ${key} failed`);
      }
      return `index of ${key}`;
    },
    async lookUpActive() {
      const version = active;
      return version && { key: version.id, activation: activationOf(version), stateOf: (built) => ({ id: version.id, built }) };
    },
  });
  return {
    holder, builds,
    activate(id: string, at: string) {
      active = { id, activated_at: at };
    },
    failNextBuild() {
      failNext = true;
    },
  };
}

describe('active version holder', () => {
  it('swaps on a new activation, and again on a rollback to a version it still holds, without a rebuild', async () => {
    const v = versions();
    await v.holder.refresh();
    expect(v.holder.current()).toBeNull();
    v.activate('a', 't1');
    await v.holder.refresh();
    expect(v.holder.current()).toEqual({ id: 'a', built: 'index of a' });
    v.activate('b', 't2');
    await v.holder.refresh();
    expect(v.holder.current()?.id).toBe('b');
    v.activate('a', 't3');
    await v.holder.refresh();
    expect(v.holder.current()?.id).toBe('a');
    expect(Object.fromEntries(v.builds)).toEqual({ a: 1, b: 1 });
  });

  it('shares one refresh among concurrent callers', async () => {
    const v = versions();
    v.activate('a', 't1');
    await Promise.all([v.holder.refresh(), v.holder.refresh(), v.holder.refresh()]);
    expect(v.builds.get('a')).toBe(1);
  });

  it('keeps at most two built versions and never drops the active one', async () => {
    const v = versions();
    v.activate('a', 't1');
    await v.holder.refresh();
    await v.holder.forKey('b');
    await v.holder.forKey('c');
    await v.holder.forKey('a');
    await v.holder.forKey('b');
    expect(v.builds.get('a')).toBe(1);
    expect(v.builds.get('b')).toBe(2);
  });

  it('forgets a failed build, so the next call builds again', async () => {
    const v = versions();
    v.failNextBuild();
    await expect(v.holder.forKey('a')).rejects.toThrow('build of a failed');
    await expect(v.holder.forKey('a')).resolves.toBe('index of a');
    expect(v.builds.get('a')).toBe(2);
  });
});
