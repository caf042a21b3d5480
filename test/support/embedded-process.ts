import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** services/main.ts: what `npm start` runs. */
export const MAIN = join(import.meta.dirname, '../../services/main.ts');

export interface StartedProcess {
  child: ChildProcess;
  baseUrl: string;
  /** What the process printed on stdout so far (the banner; logs go to stderr). */
  output: () => string;
}

/**
 * Starts `npm start` (services/main.ts) as a child process with `env` (PORT 0 for a free port) and
 * resolves with the address it prints once it listens. The child is pushed onto `children` so the
 * suite can kill what is left in afterAll. Rejects when the process exits first or prints no
 * address within the start deadline (120 s: two starts of a crash test under CI's load have taken
 * over 60 s), with its output in the message.
 */
export function spawnNpmStart(env: NodeJS.ProcessEnv, children: ChildProcess[], startTimeoutMs = 120_000): Promise<StartedProcess> {
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`${why}\nstdout:\n${out}\nstderr:\n${err}`));
    };
    const timer = setTimeout(() => fail(`no address printed within ${startTimeoutMs / 1000} s`), startTimeoutMs);
    const onExit = (code: number | null) => fail(`exited early with ${code}`);
    child.once('exit', onExit);
    const poll = setInterval(() => {
      // The banner is one small write (atomic on a pipe): once the address is seen, all of it is.
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ child, baseUrl: match[1], output: () => out });
    }, 20);
  });
}
