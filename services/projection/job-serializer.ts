/**
 * Runs work for one job strictly one piece after another, while different jobs run side by side.
 * The projection consumes two topics (checks.results, jobs.events) whose handlers may run at
 * once; every change to one job goes through here, so a read-modify-write of the job record is
 * never interleaved with another one in this process.
 */
export interface JobSerializer {
  run<T>(jobId: string, work: () => Promise<T>): Promise<T>;
  /** Resolves when everything queued so far has finished (for shutdown). */
  idle(): Promise<void>;
}

export function createJobSerializer(): JobSerializer {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(jobId, work) {
      const before = tails.get(jobId) ?? Promise.resolve();
      const next = before.then(work, work);
      const tail = next.catch(() => undefined);
      tails.set(jobId, tail);
      // Forget the job once its queue is empty, so the map does not grow with every job ever seen.
      void tail.then(() => {
        if (tails.get(jobId) === tail) tails.delete(jobId);
      });
      return next;
    },
    async idle() {
      while (tails.size > 0) await Promise.all(tails.values());
    },
  };
}
