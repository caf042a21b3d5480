import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FileRefusedError } from './refusal.ts';
import type { XlsWorkerMessage } from './xls-worker.ts';

/**
 * Rows of an xls, parsed in a child process with a time and a memory limit (crafted files target
 * parsers; see xls-worker.ts). A process, not a worker thread: a worker's `resourceLimits` end it
 * only when its heap fills by small steps; one large allocation over the limit aborts the whole
 * process the worker lives in (CI saw the test runner killed by SIGABRT; docs/files.md "The xls
 * parser in a process of its own"). An xls cannot be streamed (SheetJS reads the compound file
 * whole), but BIFF8 holds at most 65,536 rows per sheet, which bounds what it can cost within the
 * limits. Also reads an OLE2 file named .xlsx far enough to tell that it is an encrypted workbook.
 */
export interface XlsLimits {
  timeoutMs: number;
  maxMemoryMb: number;
}

export const DEFAULT_XLS_LIMITS: XlsLimits = { timeoutMs: 60_000, maxMemoryMb: 512 };
const WORKER = fileURLToPath(new URL('./xls-worker.ts', import.meta.url));

type Queued = XlsWorkerMessage | { type: 'failed'; error: FileRefusedError };

export async function* readXlsBatches(path: string, limits: XlsLimits = DEFAULT_XLS_LIMITS): AsyncGenerator<Array<Array<string | null>>> {
  // Only the heap limit: the parent's flags (a test runner's, an inspector's) are not the parser's.
  const child = fork(WORKER, [path], {
    execArgv: [`--max-old-space-size=${limits.maxMemoryMb}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const queue: Queued[] = [];
  let wake: (() => void) | null = null;
  const push = (m: Queued) => {
    queue.push(m);
    wake?.();
  };
  child.on('message', (m: XlsWorkerMessage) => push(m));
  child.on('error', (error) => push({ type: 'failed', error: new FileRefusedError('file_corrupt', 'xls parser failed', undefined, { cause: error }) }));
  // 'close' comes after every message the child sent. V8 aborts a process out of heap (SIGABRT).
  child.on('close', (_code, signal) => {
    clearTimeout(timer);
    const limit = signal === 'SIGABRT';
    push({ type: 'failed', error: new FileRefusedError(limit ? 'file_parser_limit' : 'file_corrupt', limit ? 'xls parser memory limit' : 'xls parser stopped') });
  });
  const timer = setTimeout(() => {
    push({ type: 'failed', error: new FileRefusedError('file_parser_limit', 'xls parser time limit') });
    child.kill('SIGKILL');
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
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
