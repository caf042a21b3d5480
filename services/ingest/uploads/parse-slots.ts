/**
 * At most `slots` files read at once per process (docs/files.md "Limits"): reading a file holds
 * its shared strings and a batch of rows in memory, and every upload reads its file whole before
 * answering, so without a bound N parallel uploads cost N times that. The rest wait their turn in
 * arrival order; their bytes are already on disk, not in memory.
 */
export interface ParseSlots {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Reads running now (for tests and logs). */
  readonly running: number;
}

export function createParseSlots(slots: number): ParseSlots {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run(work) {
      if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
      else running += 1;
      try {
        return await work();
      } finally {
        // Hand the slot straight to the next in line (running stays the same), else free it.
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    },
    get running() {
      return running;
    },
  };
}
