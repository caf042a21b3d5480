/**
 * A small seeded pseudo-random generator (sfc32), so that every synthetic list, person and variant
 * is reproducible from its seed: a failing test or a bench run can be replayed exactly.
 * Not for anything secret.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** A new generator whose sequence depends on this one's state and `salt`. */
  fork(salt: string): Rng;
}

export function createRng(seed: number | string): Rng {
  const h = hashString(String(seed));
  return sfc32(h, h ^ 0x9e3779b9, h ^ 0x85ebca6b, h ^ 0xc2b2ae35);
}

function sfc32(a: number, b: number, c: number, d: number): Rng {
  const next = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Mix the seed in before the first value is used.
  for (let i = 0; i < 12; i++) next();
  const rng: Rng = {
    next,
    int: (maxExclusive) => Math.floor(next() * maxExclusive),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (probability) => next() < probability,
    fork: (salt) => createRng(`${Math.floor(next() * 4294967296)}:${salt}`),
  };
  return rng;
}

/** 32-bit FNV-1a of a string; also used to derive stable codes (vejkode) from names. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
