/**
 * A poison message in the middle of a 100,000-row job, written once and run on both
 * deployments. The API of the deployment runs in the test process on `log`; for one job the test
 * stands between it and the log as a producer that corrupts one message: chunk 25 of the job's 50
 * goes out as bytes no registry can read, under the chunk's own key. The job can never complete
 * without it, so it must fail with a clear error (`unreadable_message`) and exactly one
 * `check_job.failed` callback (the intake seals the job while the projection fails it: neither
 * write may undo the other, docs/faults.md "One callback"); the message must reach
 * checks.rows.dlq as it was sent, with its origin; and the partitions must keep flowing: the next
 * job is done, complete.
 */
import { expect } from 'vitest';
import { deadLetterTopicOf } from '../../infra/topics.ts';
import { topicNames } from '../../services/pipeline/events.ts';
import { DEAD_LETTER_HEADERS, type EventLog, type LogMessage } from '../../services/platform/log/port.ts';
import { uniqueName, waitFor } from '../support/event-log.ts';
import { mixedRows } from '../support/pipeline.ts';
import { api, createJob, expectCompleteResults, expectOneCallback, waitForJob, type Deployment } from './pipeline-scenarios.ts';

const ROWS = 100_000;
const POISONED_CHUNK = 25; // of 50 chunks of 2,000 rows

export async function poisonMessageScenario(d: Deployment, log: EventLog, topicPrefix: string): Promise<void> {
  const rowsTopic = topicNames(topicPrefix).checksRows;
  // Not the wire format (magic byte 0xff): unreadable for good, whatever registry reads it.
  const poison = Buffer.from([0xff, 0xde, 0xad, 0xbe, 0xef, 0x00]);
  let key: string | null = null;
  const publish = log.publish;
  log.publish = async (topic, messages) => {
    if (topic !== rowsTopic || key !== null) return publish.call(log, topic, messages);
    const out = messages.map((m) => {
      if (key !== null || !m.key?.endsWith(`:${POISONED_CHUNK}`)) return m;
      key = m.key;
      return { ...m, value: poison };
    });
    return publish.call(log, topic, out);
  };
  const big = mixedRows(ROWS);
  let created;
  try {
    // The callback URL before the people: the intake then publishes chunks while it reads the
    // body, under the job's final id (fields after the people make it start over under another).
    const response = await api(d, 'POST', '/v2/check-jobs', { callback_url: d.receiver.url('poison'), people: big.map((r) => r.person) });
    expect(response.status, response.text.slice(0, 500)).toBe(202);
    created = response.json;
  } finally {
    log.publish = publish;
  }
  expect(key).toBe(`${created.id}:${POISONED_CHUNK}`);

  const failed = await waitForJob(d, created.id, (job) => job.status === 'failed' || job.status === 'done', 180_000);
  expect(failed.status).toBe('failed');
  expect(failed.error).toBe('unreadable_message');
  await expectOneCallback(d, 'poison', failed, 'check_job.failed');

  const letters: LogMessage[] = [];
  await log.subscribe({
    group: uniqueName('dlq-reader'),
    topics: [deadLetterTopicOf(rowsTopic)],
    handleBatch: async (batch) => void letters.push(...batch.messages),
  });
  await waitFor('the dead letter', () => letters.some((m) => m.key === key), 90_000);
  const letter = letters.find((m) => m.key === key)!;
  expect(letter.value).toEqual(poison);
  expect(letter.headers).toMatchObject({
    [DEAD_LETTER_HEADERS.topic]: rowsTopic,
    [DEAD_LETTER_HEADERS.key]: key,
    [DEAD_LETTER_HEADERS.error]: 'WireFormatError',
  });
  // Only the poison message: the job's other chunks were matched, none was dead-lettered.
  expect(letters.filter((m) => m.key?.startsWith(created.id))).toHaveLength(1);
  expect(failed.processed_count).toBeLessThanOrEqual(ROWS - 2_000);

  // The partitions flow on: a job whose chunks cover every partition again is done, complete.
  const next = mixedRows(3_000);
  const nextJob = await createJob(d, next.map((r) => r.person));
  const done = await waitForJob(d, nextJob.id, (job) => job.status === 'done' || job.status === 'failed', 120_000);
  await expectCompleteResults(d, done, next, d.listVersionId);
}
