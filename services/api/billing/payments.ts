import type { PipelineEvents } from '../../pipeline/events.ts';
import type { JobStore } from '../../platform/store/jobs-port.ts';

/**
 * Recording a payment for a pay-per-list job (docs/decisions.md §8), for the payment provider's webhook
 * and the admin tool alike. A payment is an event: `JobStateChanged{queued}` on jobs.events, which
 * the projection (the one writer of a job's state) applies: awaiting_payment → queued, then done
 * as soon as every row is checked. Nothing here writes the job record.
 *
 * Outcomes: `recorded`; `already_paid` (the job left awaiting_payment: a replay changes nothing);
 * `not_payable` (deleted, failed, or never priced); `amount_mismatch` (the amount or currency is
 * not the job's price); `not_found`.
 */
export type PaymentOutcome = 'recorded' | 'already_paid' | 'not_payable' | 'amount_mismatch' | 'not_found';

export interface PaymentInput {
  jobId: string;
  /** What the provider says was paid; the admin tool records the job's own price. */
  amount?: { amount_cents: number; currency: string };
}

export async function recordPayment(
  deps: { jobs: Pick<JobStore, 'getJobById'>; events: Pick<PipelineEvents, 'publish'>; now: () => Date },
  input: PaymentInput,
): Promise<PaymentOutcome> {
  const job = await deps.jobs.getJobById(input.jobId);
  if (!job) return 'not_found';
  if (job.status === 'queued' || job.status === 'running' || job.status === 'done') return job.price ? 'already_paid' : 'not_payable';
  if (job.status !== 'awaiting_payment' || !job.price) return 'not_payable';
  if (input.amount && (input.amount.amount_cents !== job.price.amount_cents || input.amount.currency !== job.price.currency)) {
    return 'amount_mismatch';
  }
  await deps.events.publish({
    type: 'JobStateChanged',
    value: {
      job_id: job.id, org_id: job.org_id, status: 'queued', error: null, changed_at: deps.now().toISOString(),
      processed_count: job.processed_count, finished_at: null,
    },
  });
  return 'recorded';
}
