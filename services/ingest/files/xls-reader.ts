import { Worker } from 'node:worker_threads';
import { FileRefusedError } from './refusal.ts';
import type { XlsWorkerMessage } from './xls-worker.ts';

/**
 * Rows of an xls, parsed in a worker thread with a time and a memory limit (crafted files target
 * parsers; see xls-worker.ts). An xls cannot be streamed (SheetJS reads the compound file whole),
 * but BIFF8 holds at most 65,536 rows per sheet, which bounds what it can cost within the limits.
 * Also reads an OLE2 file named .xlsx far enough to tell that it is an encrypted workbook.
 */
export interface XlsLimits {
  timeoutMs: number;
  maxMemoryMb: number;
}

export const DEFAULT_XLS_LIMITS: XlsLimits = { timeoutMs: 60_000, maxMemoryMb: 512 };
/** Below this V8 cannot even start the worker's isolate, and that aborts the whole process. */
const MIN_MEMORY_MB = 16;

export async function* readXlsBatches(path: string, limits: XlsLimits = DEFAULT_XLS_LIMITS): AsyncGenerator<Array<Array<string | null>>> {
  const worker = new Worker(new URL('./xls-worker.ts', import.meta.url), {
    workerData: { path },
    resourceLimits: { maxOldGenerationSizeMb: Math.max(MIN_MEMORY_MB, limits.maxMemoryMb), maxYoungGenerationSizeMb: 32 },
    stdout: true,
    stderr: true,
  });
  const queue: Array<XlsWorkerMessage | { type: 'failed'; error: FileRefusedError }> = [];
  let wake: (() => void) | null = null;
  const push = (m: (typeof queue)[number]) => {
    queue.push(m);
    wake?.();
  };
  worker.on('message', (m: XlsWorkerMessage) => push(m));
  worker.on('error', (error: Error & { code?: string }) => {
    const limit = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    push({ type: 'failed', error: new FileRefusedError(limit ? 'file_parser_limit' : 'file_corrupt', limit ? 'xls parser memory limit' : 'xls parser failed', undefined, { cause: error }) });
  });
  worker.on('exit', () => {
    clearTimeout(timer); // finished on its own (or killed): no limit left to watch
    push({ type: 'failed', error: new FileRefusedError('file_corrupt', 'xls parser stopped') });
  });
  const timer = setTimeout(() => {
    push({ type: 'failed', error: new FileRefusedError('file_parser_limit', 'xls parser time limit') });
    void worker.terminate();
  }, limits.timeoutMs);
  try {
    for (;;) {
      const m = queue.shift();
      if (m === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      if (m.type === 'rows') yield m.rows;
      else if (m.type === 'done') return;
      else if (m.type === 'refused') throw new FileRefusedError(m.code, m.detail);
      else throw m.error;
    }
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
