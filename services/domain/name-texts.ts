import { letterSet } from './edit-distance.ts';
import { skeleton } from './normalize.ts';

/**
 * The spelling of each name word of a list index by its id, for the tolerant name comparison
 * (docs/matching.md "Names": one slip, initials). Name words are otherwise only fingerprints; a
 * slip cannot be seen in a fingerprint. Kept as one array of character codes (the skeleton, the
 * form the fingerprint hashes) with offsets, and each word's letter set: a few bytes a word, and
 * only the list's distinct name words (~10⁵-10⁶ at national size), not one per entry.
 */
export interface NameTexts {
  /** Skeleton character codes of word id w: chars[start[w] .. start[w + 1]). */
  chars: Uint16Array;
  start: Int32Array;
  /** letterSet of each word's skeleton (edit-distance.ts). */
  letters: Int32Array;
}

export interface NameTextsBuilder {
  /** Records the word of the next id (ids come 0, 1, 2, … in this order). */
  add(word: string): void;
  build(): NameTexts;
}

export function createNameTextsBuilder(): NameTextsBuilder {
  let chars = new Uint16Array(1 << 14);
  let used = 0;
  const starts: number[] = [0];
  const letters: number[] = [];
  return {
    add(word: string): void {
      const key = skeleton(word);
      if (used + key.length > chars.length) {
        const bigger = new Uint16Array(Math.max(chars.length * 2, used + key.length));
        bigger.set(chars);
        chars = bigger;
      }
      for (let i = 0; i < key.length; i++) chars[used++] = key.charCodeAt(i);
      starts.push(used);
      letters.push(letterSet(key));
    },
    build: (): NameTexts => ({ chars: chars.slice(0, used), start: Int32Array.from(starts), letters: Int32Array.from(letters) }),
  };
}
