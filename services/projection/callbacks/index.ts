/**
 * Completion callbacks (docs/contract.md Events, docs/decisions.md §9). See docs/callbacks.md.
 * The URL guard and the pinned request are in services/platform/outbound-http, the signature in
 * services/platform/webhook-signature.ts: api and ingest use them too, and they may not import
 * projection (docs/architecture.md "Conventions").
 */
export {
  DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, dueAt, initialDeliveryState, nextAttemptAt, parseRetryDelays, recordAttempt,
  type AttemptResult, type CallbackEvent, type DeliveryState,
} from './schedule.ts';
export {
  createCallbackSender, systemClock,
  type CallbackClock, type CallbackRequest, type CallbackSender, type CallbackSenderDeps, type DeliverOptions,
} from './sender.ts';
