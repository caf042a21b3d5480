/**
 * Polls `condition` (sync or async) until it holds, and fails naming `what` once `timeoutMs`
 * passed: every wait in the tests has a deadline, so a signal that never comes is a failure, not
 * a hang. `pollMs` 0 yields to the event loop only (for conditions other tasks make true).
 */
export async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000, pollMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => (pollMs === 0 ? setImmediate(resolve) : setTimeout(resolve, pollMs)));
  }
}
