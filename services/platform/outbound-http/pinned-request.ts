/**
 * One HTTPS request to an address the URL guard checked (url-guard.ts): the connection goes to
 * that address (a pinned `lookup`, so DNS cannot change between check and connect), while TLS
 * still verifies the certificate against the URL's host name; no agent, so no connection is
 * reused past its check. Redirects are never followed (node:https does not). Used by the
 * callbacks' POST (services/projection/callbacks/https-post.ts) and the connectors' GET (services/ingest/connector/https-get.ts);
 * docs/callbacks.md "Which URLs are called" says why the address is pinned.
 */
import { request, type RequestOptions } from 'node:https';
import type { ClientRequest } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { CheckedCallbackUrl } from './url-guard.ts';

export interface PinnedRequestOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Extra trusted certificates (a test server's own); else the system's CAs. */
  ca?: RequestOptions['ca'];
  signal?: AbortSignal;
}

export function pinnedRequest(target: CheckedCallbackUrl, options: PinnedRequestOptions): ClientRequest {
  return request({
    method: options.method,
    hostname: target.hostname,
    port: target.url.port === '' ? 443 : Number(target.url.port),
    path: `${target.url.pathname}${target.url.search}`,
    headers: options.headers,
    lookup: pinnedLookup(target.address),
    agent: false,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

function pinnedLookup(address: CheckedCallbackUrl['address']): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as LookupFunction;
}

/**
 * What went wrong with a request, as a short code without content: `tls_error:<code>` for a
 * certificate or TLS failure, else `connect_error:<code>` for Node's system errors (E…), and
 * `nonSystem`:<code> for anything else.
 */
export function requestErrorCode(error: unknown, nonSystem: 'connect_error' | 'network_error'): string {
  const code = (error as { code?: unknown })?.code;
  const text = typeof code === 'string' ? code : 'unknown';
  if (/CERT|TLS|SSL|SELF_SIGNED|ALTNAME/.test(text)) return `tls_error:${text}`;
  if (text.startsWith('E')) return `connect_error:${text}`;
  return `${nonSystem}:${text}`;
}
