/**
 * The worker half of sync-split-probe.ts: builds the same list index as the probe's main thread
 * and checks the people it is sent with the same function, answering with the JSON of its
 * results (docs/performance.md "Measurements", the split of one synchronous check).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildListIndex, checkPerson } from '../../services/domain/index.ts';
import type { CheckOptions, PersonInput } from '../../services/domain/types.ts';
import { generateListEntries } from '../../services/synthetic/index.ts';

const { entries, seed } = workerData as { entries: number; seed: number };
const index = buildListIndex(generateListEntries(entries, seed));
const port = parentPort;
if (!port) throw new Error('sync-split-worker.ts runs as a worker thread');
port.on('message', (message: { id: number; people: PersonInput[]; options: CheckOptions }) => {
  const started = process.threadCpuUsage();
  const json = JSON.stringify(message.people.map((person) => checkPerson(index, person, message.options)));
  const cpu = process.threadCpuUsage(started);
  port.postMessage({ id: message.id, json, cpuMs: (cpu.user + cpu.system) / 1000 });
});
port.postMessage({ ready: true });
