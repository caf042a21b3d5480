/**
 * Outbound HTTPS to an address a customer gave us: the URL guard (which URLs may be called and
 * at which address) and the pinned request that connects to exactly that address. The callbacks'
 * POST (services/projection/callbacks), the connectors' GET (services/ingest/connector) and the
 * checks at creation (services/api, services/admin) all use it, so it lives in the platform that
 * every layer may import (docs/architecture.md "Conventions"; rules in docs/callbacks.md
 * "Which URLs are called").
 */
export { blockedAddressReason } from './blocked-addresses.ts';
export { pinnedRequest, requestErrorCode, type PinnedRequestOptions } from './pinned-request.ts';
export {
  CallbackUrlError, checkCallbackUrl, parseAllowHosts, parseCallbackUrl, systemLookup,
  type CheckedCallbackUrl, type LookupAll, type UrlRefusal,
} from './url-guard.ts';
