/** Completion callbacks (docs/contract.md Events, docs/decisions.md §9). See docs/callbacks.md. */
export { blockedAddressReason } from './blocked-addresses.ts';
export {
  DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, dueAt, initialDeliveryState, nextAttemptAt, parseRetryDelays, recordAttempt,
  type AttemptResult, type CallbackEvent, type DeliveryState,
} from './schedule.ts';
export {
  createCallbackSender, systemClock,
  type CallbackClock, type CallbackRequest, type CallbackSender, type CallbackSenderDeps, type DeliverOptions,
} from './sender.ts';
export { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signCallback, verifyCallbackSignature, type SignatureCheck, type SignedDelivery } from './signature.ts';
export {
  CallbackUrlError, checkCallbackUrl, parseAllowHosts, parseCallbackUrl, systemLookup,
  type CheckedCallbackUrl, type LookupAll, type UrlRefusal,
} from './url-guard.ts';
