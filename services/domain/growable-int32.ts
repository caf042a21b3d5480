/**
 * An Int32Array that grows by doubling and is trimmed to its length at the end: the columns the
 * list index and the address register are built into (docs/matching.md "Speed of the check
 * path": flat typed columns instead of objects per entry).
 */
export interface GrowableInt32 {
  push(v: number): void;
  length(): number;
  done(): Int32Array;
}

export function growableInt32(initial = 1024): GrowableInt32 {
  let array = new Int32Array(initial);
  let length = 0;
  return {
    push(v: number): void {
      if (length === array.length) {
        const bigger = new Int32Array(array.length * 2);
        bigger.set(array);
        array = bigger;
      }
      array[length++] = v;
    },
    length: () => length,
    done: () => array.slice(0, length),
  };
}
