import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { recordPayment } from '../billing/payments.ts';
import type { PipelineEvents } from '../../pipeline/events.ts';
import { verifyCallbackSignature } from '../../platform/webhook-signature.ts';
import type { JobStore } from '../../platform/store/jobs-port.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { sendOutcome } from '../idempotency.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

/**
 * The payment provider's webhook (docs/decisions.md §8). The provider is outside this repository (tests
 * use a test double that signs like one); its contract, chosen here in Stripe's manner:
 * - header `Payment-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 *   secret PAYMENT_WEBHOOK_SECRET (the callback signature scheme, docs/contract.md Events rule 2);
 * - body `{id, type: "payment.succeeded", data: {job_id, amount_cents, currency}}`.
 * Replay-safe twice over: a timestamp more than 5 minutes off is refused, and an event id already
 * seen replays its first answer without doing anything again (the idempotency store, 24 h).
 */
export const PAYMENT_SIGNATURE_HEADER = 'payment-signature';
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const PaymentEventSchema = z.strictObject({
  id: z.string().min(1).max(255),
  type: z.literal('payment.succeeded'),
  data: z.strictObject({
    job_id: z.uuid(),
    amount_cents: z.int().min(0),
    currency: z.string().length(3),
  }),
});

const PaymentReceiptSchema = z.strictObject({
  received: z.literal(true),
  job_id: z.uuid(),
  outcome: z.enum(['recorded', 'already_paid']),
});

export const paymentWebhookSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/payments/webhook',
  operationId: 'receivePaymentEvent',
  summary: "The payment provider's webhook: a paid pay-per-list job starts",
  description:
    'Signed by the provider (`Payment-Signature`), not by an API key. 401 for a missing, wrong or stale signature; ' +
    '422 for an unknown job, an amount that is not the price, or a job that cannot be paid; the same event id again replays the first answer. ' +
    '404 on a deployment that takes no payment webhooks (no PAYMENT_WEBHOOK_SECRET configured).',
  authenticated: false,
  body: PaymentEventSchema,
  success: { status: 200, description: 'The payment was recorded (or had been)', schema: PaymentReceiptSchema, headers: ['Request-Id', 'Idempotent-Replayed'] },
  errors: [400, 401, 404, 422, 500],
};

export interface PaymentsContext {
  jobs: JobStore;
  events: Pick<PipelineEvents, 'publish'>;
  /** Null: this deployment takes no payment webhooks; the route answers 404 (but still 405 for other methods). */
  secret: string | null;
}

const signatureRefused = (reason: string) =>
  new ApiError({ code: 'unauthorized', messageKey: 'webhook_signature_invalid', details: { reason } });

export function registerPaymentRoutes(app: FastifyInstance, ctx: RouteContext, payments: PaymentsContext): void {
  // The signature covers the raw bytes: in this scope JSON is handed on unparsed.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    registerRoute(scope, { ...paymentWebhookSpec, body: undefined }, [], async (request, reply) => {
      if (payments.secret === null) throw new ApiError({ code: 'not_found', messageKey: 'not_found' });
      const raw = (request.body as Buffer).toString('utf8');
      const header = request.headers[PAYMENT_SIGNATURE_HEADER];
      const check = verifyCallbackSignature(
        Array.isArray(header) ? header[0] : header, raw, payments.secret, WEBHOOK_TOLERANCE_SECONDS,
        Math.floor(ctx.clock().getTime() / 1000),
      );
      if (!check.ok) throw signatureRefused(check.reason === 'mismatch' || check.reason === 'malformed' ? 'signature_invalid' : 'timestamp_out_of_tolerance');
      let parsedJson: unknown;
      try {
        parsedJson = JSON.parse(raw);
      } catch {
        throw new ApiError({ code: 'invalid_request', messageKey: 'invalid_json', status: 400, details: { reason: 'invalid_json' } });
      }
      const parsed = PaymentEventSchema.safeParse(parsedJson);
      if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, parsedJson));
      const event = parsed.data;
      const outcome = await ctx.idempotency.runWithFingerprint(
        { orgId: 'payment-provider', mode: 'live', endpoint: 'POST /v2/payments/webhook' },
        event.id,
        createHash('sha256').update(raw).digest('hex'),
        async () => {
          const result = await recordPayment(
            { jobs: payments.jobs, events: payments.events, now: ctx.clock },
            { jobId: event.data.job_id, amount: { amount_cents: event.data.amount_cents, currency: event.data.currency } },
          );
          if (result !== 'recorded' && result !== 'already_paid') {
            throw new ApiError({ code: 'invalid_request', messageKey: `payment_${result}`, details: { reason: result } });
          }
          ctx.logger.info({ job_id: event.data.job_id, outcome: result, request_id: request.id }, 'payment.webhook');
          return { status: 200, body: JSON.stringify({ received: true, job_id: event.data.job_id, outcome: result }) };
        },
      );
      return sendOutcome(reply, outcome);
    });
  });
}
