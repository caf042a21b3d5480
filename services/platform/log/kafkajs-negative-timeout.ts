import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 (its last release) schedules a check of a connection's request queue after
 * `throttledUntil - Date.now()` ms, and `throttledUntil` is -1 until a broker throttles: a negative
 * delay on every connection. Node turns it into 1 ms, and Node 24 also emits a
 * TimeoutNegativeWarning, which every service printed (a minus-timestamp, nothing of ours: no
 * setting of ours decides it). Upstream: github.com/tulios/kafkajs/issues/1751, fix in PR #1755, unreleased.
 * This puts that fix in place: the same method with the delay clamped to Node's minimum of 1 ms,
 * so the timer fires exactly as before and only the warning goes. Only for 2.2.4: another version
 * keeps its own method (test/integration/kafka-behaviour.test.ts shows whether it still warns).
 * (`node --disable-warning` would only hide the print: the 'warning' event still fires.)
 */
interface RequestQueue {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL: the wait when requests are pending but not throttled. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

const require = createRequire(import.meta.url);
if ((require('kafkajs/package.json') as { version: string }).version === '2.2.4') {
  const { prototype } = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueue };
  prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueue) {
    if (this.throttleCheckTimeoutId) return;
    let scheduleAt = this.throttledUntil - Date.now();
    if (this.pending.length > 0 && scheduleAt <= 0) scheduleAt = CHECK_PENDING_REQUESTS_INTERVAL_MS;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, Math.max(1, scheduleAt));
  };
}
