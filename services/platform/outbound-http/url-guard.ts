/**
 * Decides whether a callback URL may be called and to which address (docs/decisions.md §9). Only `https`,
 * and every address the host resolves to must be public (blocked-addresses.ts). The checked
 * address is returned so the sender connects to exactly it: resolving again at connect time would
 * let a DNS answer change between the check and the connection (DNS rebinding).
 *
 * `allowHosts` (configuration, e.g. CALLBACK_ALLOW_HOSTS=127.0.0.1,localhost) names hosts whose
 * addresses are not checked, so tests can use a receiver on loopback. It never allows `http`.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ClassifiedError } from '../errors.ts';
import { blockedAddressReason } from './blocked-addresses.ts';

export type UrlRefusal = 'invalid_url' | 'not_https' | 'credentials_in_url' | 'unresolvable' | 'blocked_address';

export class CallbackUrlError extends ClassifiedError {
  override name = 'CallbackUrlError';
  readonly reason: UrlRefusal;
  /** For blocked_address: which kind (`loopback`, `private`, `metadata`, ...). */
  readonly detail: string | undefined;

  constructor(reason: UrlRefusal, detail?: string) {
    super(detail ? `callback URL refused: ${reason} (${detail})` : `callback URL refused: ${reason}`);
    this.reason = reason;
    this.detail = detail;
  }

  /** DNS failure may pass; a URL that is wrong or points inwards stays refused (services/platform/errors.ts). */
  override get permanent(): boolean {
    return this.reason !== 'unresolvable';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** dns.lookup with `all: true`, injectable so tests can play any DNS answer. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupAll = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

export interface CheckedCallbackUrl {
  url: URL;
  /** Host as written in the URL, lower case, without IPv6 brackets. */
  hostname: string;
  /** Where to connect: the first address of the host, checked. */
  address: ResolvedAddress;
}

/** The parts that need no DNS: scheme, form, credentials. Usable by the API at job creation. */
export function parseCallbackUrl(text: string): { url: URL; hostname: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CallbackUrlError('invalid_url');
  }
  if (url.protocol !== 'https:') throw new CallbackUrlError('not_https');
  if (url.username !== '' || url.password !== '') throw new CallbackUrlError('credentials_in_url');
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (hostname === '') throw new CallbackUrlError('invalid_url');
  return { url, hostname };
}

export function parseAllowHosts(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase().replace(/^\[|\]$/g, ''))
    .filter((host) => host !== '');
}

export async function checkCallbackUrl(
  text: string,
  options: { allowHosts?: readonly string[]; lookup?: LookupAll } = {},
): Promise<CheckedCallbackUrl> {
  const { url, hostname } = parseCallbackUrl(text);
  const allowed = (options.allowHosts ?? []).includes(hostname);
  let addresses: ResolvedAddress[];
  const literalFamily = isIP(hostname);
  if (literalFamily !== 0) {
    addresses = [{ address: hostname, family: literalFamily === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(hostname);
    } catch {
      throw new CallbackUrlError('unresolvable');
    }
    if (addresses.length === 0) throw new CallbackUrlError('unresolvable');
  }
  if (!allowed) {
    // Every answer is checked, not just the one used: a host that also points inwards is refused.
    for (const { address } of addresses) {
      const reason = blockedAddressReason(address);
      if (reason !== null) throw new CallbackUrlError('blocked_address', reason);
    }
  }
  return { url, hostname, address: addresses[0] };
}
