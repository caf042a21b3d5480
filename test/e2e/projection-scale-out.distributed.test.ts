/**
 * The projection scaled out (docs/architecture.md "Projection"): TWO projection processes in one
 * consumer group on real Kafka and ClickHouse (infra/local), jobs spread over them by the
 * partition of checks.results their id is keyed to. Several jobs run at once, at least one owned
 * by each process; the owner of a running job is killed -9 mid-job. The survivor takes its
 * partitions over: every job ends done with exactly its rows, counted once, and exactly one
 * completion callback. Which process owns which job is read from the broker (the group's
 * assignment) and Kafka's own partitioner, never guessed. Fails, never skips, without the servers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssignerProtocol, Kafka, logLevel, Partitioners, type PartitionMetadata } from 'kafkajs';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { mixedRows, type MixedRow } from '../support/pipeline.ts';
import { servers } from '../support/servers.ts';
import { until } from '../support/until.ts';
import {
  createJob, expectCompleteResults, expectOneCallback, isFinished, waitForJob, type Deployment,
} from './pipeline-scenarios.ts';

/** An API answer, as pipeline-scenarios.ts reads them. */
type Json = Record<string, any>;

const RESULTS_PARTITIONS = 12; // infra/topics.ts: checks.results
const ROWS_PER_JOB = 40_000;
const MAX_JOBS = 10;

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;
let d: Deployment;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startDistributed(receiver, { matchers: 1, projections: 2 });
  d = { ...deployment, receiver };
}, 240_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
}, 60_000);

/** The member id each running projection process last joined the group with (its own log line). */
function memberOf(process: ServiceProcess, group: string): string | null {
  let member: string | null = null;
  for (const line of process.output().split('\n')) {
    if (!line.includes('event_log.group_joined')) continue;
    const entry = JSON.parse(line) as { msg?: string; group?: string; member?: string };
    if (entry.msg === 'event_log.group_joined' && entry.group === group && entry.member) member = entry.member;
  }
  return member;
}

/** checks.results partitions per member of the projection group, as the broker assigned them. */
async function resultsAssignment(kafka: Kafka, group: string, topic: string): Promise<{ state: string; members: Map<string, number[]> }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups: [described] } = await admin.describeGroups([group]);
    const members = new Map<string, number[]>();
    for (const member of described.members) {
      const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      members.set(member.memberId, decoded?.assignment[topic] ?? []);
    }
    return { state: described.state, members };
  } finally {
    await admin.disconnect();
  }
}

/** The partition the producers put a job's results on: kafkajs's default partitioner of its key. */
function partitionOfJob(topic: string, jobId: string): number {
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: RESULTS_PARTITIONS }, (_, id) => ({
    partitionId: id, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0],
  }));
  return Partitioners.DefaultPartitioner()({ topic, partitionMetadata, message: { key: jobId, value: null } });
}

describe('two projection processes in one group, one killed -9 mid-job', () => {
  it('takes different jobs by partition; after the kill every job is done with exactly N results and one callback', async () => {
    const prefix = deployment.env.KAFKA_TOPIC_PREFIX;
    const group = `${prefix}projection`;
    const topic = `${prefix}checks.results`;
    const kafka = new Kafka({ clientId: 'e2e-scale-out', brokers: [...servers.kafkaBrokers], logLevel: logLevel.NOTHING });
    const projections = deployment.processes.filter((p) => p.name === 'projection');
    expect(projections).toHaveLength(2);

    // Both processes hold partitions of checks.results, none twice (the group settled after the second joined).
    let assignment = await resultsAssignment(kafka, group, topic);
    await until('both projection processes to hold checks.results partitions', async () => {
      assignment = await resultsAssignment(kafka, group, topic);
      const members = projections.map((p) => memberOf(p, group));
      return assignment.state === 'Stable' && members.every((m) => m !== null && (assignment.members.get(m)?.length ?? 0) > 0);
    }, 60_000, 200);
    const owned = projections.map((p) => new Set(assignment.members.get(memberOf(p, group)!)));
    expect(owned[0].size + owned[1].size).toBe(RESULTS_PARTITIONS);
    expect([...owned[0]].filter((partition) => owned[1].has(partition))).toEqual([]);

    // Jobs until each process owns at least one (job ids are random: each is on either side).
    const jobs: Array<{ job: Json; rows: MixedRow[]; owner: number; path: string }> = [];
    while (jobs.length < 2 || new Set(jobs.map((j) => j.owner)).size < 2) {
      expect(jobs.length, 'ten jobs all keyed to one process').toBeLessThan(MAX_JOBS);
      const rows = mixedRows(ROWS_PER_JOB);
      const path = `scale-out-${jobs.length}`;
      const job = await createJob(d, rows.map((r) => r.person), receiver.url(path));
      const owner = owned.findIndex((partitions) => partitions.has(partitionOfJob(topic, job.id)));
      expect(owner).toBeGreaterThanOrEqual(0);
      jobs.push({ job, rows, owner, path });
    }

    // The victim: the owner of a job whose results have begun, but not ended, to be stored.
    let victimJob: (typeof jobs)[number] | undefined;
    await until('a job mid-way', async () => {
      for (const entry of jobs) {
        const job = await waitForJob(d, entry.job.id, () => true);
        if (job.processed_count > 0 && job.status === 'running') {
          victimJob = entry;
          return true;
        }
      }
      return false;
    }, 120_000, 20);
    const midway = await waitForJob(d, victimJob!.job.id, () => true);
    expect(midway.processed_count).toBeLessThan(ROWS_PER_JOB);
    const victim = projections[victimJob!.owner];
    const survivor = projections[1 - victimJob!.owner];
    victim.child.kill('SIGKILL');
    await victim.exited;

    for (const { job, rows, path } of jobs) {
      const done = await waitForJob(d, job.id, isFinished, 180_000);
      await expectCompleteResults(d, done, rows, d.listVersionId);
      await expectOneCallback(d, path, done, 'check_job.completed');
    }
    // The survivor alone holds every partition now, and it is still running.
    const after = await resultsAssignment(kafka, group, topic);
    expect([...after.members.values()].flat().sort((a, b) => a - b)).toEqual(Array.from({ length: RESULTS_PARTITIONS }, (_, i) => i));
    expect(after.members.size).toBe(1);
    expect(survivor.child.exitCode, survivor.output()).toBeNull();
  }, 480_000);
});
