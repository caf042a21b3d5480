import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  blockedAddressReason, checkCallbackUrl, dueAt, initialDeliveryState, nextAttemptAt, parseAllowHosts,
  parseRetryDelays, recordAttempt, signCallback, verifyCallbackSignature, type LookupAll, type UrlRefusal,
} from '../../../services/projection/callbacks/index.ts';
import { CallbackUrlError } from '../../../services/projection/callbacks/index.ts';
import { isPermanent } from '../../../services/platform/errors.ts';

const apiKey = 'rl_test_0123456789abcdefghijABCDEFGHIJ0123456789';
const secret = createHash('sha256').update(apiKey).digest('hex');

describe('callback signature', () => {
  it('is HMAC-SHA256 over `<t>.<raw body>` keyed with the hex SHA-256 of the API key', () => {
    const body = '{"id":"j1","status":"done","note":"æøå"}';
    const header = signCallback(body, secret, 1_767_225_600);
    const expected = createHmac('sha256', secret).update(`1767225600.${body}`).digest('hex');
    expect(header).toBe(`t=1767225600,v1=${expected}`);
  });

  it('covers Service-Delivery and Service-Event in v2, so a replay under a fresh delivery id fails; v1 stays the contract\'s', () => {
    const body = '{"id":"j1","status":"done"}';
    const now = 1_800_000_000;
    const delivery = { deliveryId: '0b6c1e0e-0000-4000-8000-000000000001', event: 'check_job.completed' };
    const header = signCallback(body, secret, now, delivery);
    const v1 = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    const v2 = createHmac('sha256', secret).update(`${now}.${delivery.deliveryId}.${delivery.event}.${body}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${v1},v2=${v2}`);
    expect(verifyCallbackSignature(header, body, secret, 300, now, delivery)).toEqual({ ok: true, timestamp: now });
    expect(verifyCallbackSignature(header, body, secret, 300, now)).toEqual({ ok: true, timestamp: now });
    // The same bytes resent with another Service-Delivery (to slip past deduplication), or event.
    expect(verifyCallbackSignature(header, body, secret, 300, now, { ...delivery, deliveryId: '0b6c1e0e-0000-4000-8000-000000000002' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCallbackSignature(header, body, secret, 300, now, { ...delivery, event: 'check_job.failed' })).toEqual({ ok: false, reason: 'mismatch' });
    // A header with v1 only cannot pass a receiver that checks the delivery.
    expect(verifyCallbackSignature(`t=${now},v1=${v1}`, body, secret, 300, now, delivery)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('verifies as a receiver would, refusing tampering, other keys, old and future timestamps', () => {
    const body = '{"id":"j1"}';
    const now = 1_800_000_000;
    const header = signCallback(body, secret, now);
    expect(verifyCallbackSignature(header, body, secret, 300, now)).toEqual({ ok: true, timestamp: now });
    expect(verifyCallbackSignature(header, body + ' ', secret, 300, now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCallbackSignature(header, body, 'a'.repeat(64), 300, now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCallbackSignature(header, body, secret, 300, now + 301)).toEqual({ ok: false, reason: 'too_old' });
    expect(verifyCallbackSignature(header, body, secret, 300, now - 301)).toEqual({ ok: false, reason: 'in_future' });
    expect(verifyCallbackSignature(undefined, body, secret, 300, now).ok).toBe(false);
    expect(verifyCallbackSignature('t=1,v1=zz', body, secret, 300, now)).toEqual({ ok: false, reason: 'malformed' });
    // A second v1 (say, during a rotation) does not stop a matching one from counting.
    expect(verifyCallbackSignature(`${header},v1=${'0'.repeat(64)}`, body, secret, 300, now).ok).toBe(true);
  });
});

describe('blocked addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'mapped_loopback'],
    ['::ffff:7f00:1', 'mapped_loopback'],
    ['::ffff:10.0.0.1', 'mapped_private'],
    ['::ffff:169.254.169.254', 'mapped_metadata'],
    ['64:ff9b::a9fe:a9fe', 'nat64_metadata'],
    ['[::1]', 'loopback'],
    // Transition forms carrying an inward IPv4 address, or hiding it (Teredo).
    ['2002:7f00:1::', '6to4_loopback'],
    ['2002:a9fe:a9fe::1', '6to4_metadata'],
    ['2002:a9fe:0101:0:0:0:0:1', '6to4_link_local'],
    ['2002:0a00:0001::', '6to4_private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:0:5ef5:79fd::1', 'teredo'],
    ['::ffff:0:7f00:1', 'translated_loopback'],
    ['::ffff:0:a9fe:a9fe', 'translated_metadata'],
    ['64:ff9b::7f00:1', 'nat64_loopback'],
    ['64:ff9b:1::a00:1', 'nat64_private'],
    ['::127.0.0.1', 'compatible_loopback'],
    ['2001:2::1', 'reserved'],
    ['192.88.99.1', 'reserved'],
  ])('%s is %s', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.1.1', '2a00:1450:4001::1', '::ffff:8.8.8.8', '2002:0808:0808::1', '64:ff9b::808:808', '2001:4860:4860::8888'])(
    '%s is public',
    (address) => {
      expect(blockedAddressReason(address)).toBeNull();
    },
  );
});

async function refusal(url: string, options: Parameters<typeof checkCallbackUrl>[1] = {}): Promise<[UrlRefusal, string | undefined]> {
  try {
    await checkCallbackUrl(url, options);
  } catch (error) {
    if (error instanceof CallbackUrlError) return [error.reason, error.detail];
    throw error;
  }
  throw new Error('expected a refusal');
}

const dns = (answers: Record<string, string[]>): LookupAll => async (hostname) => {
  const found = answers[hostname];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('callback URL guard', () => {
  const lookup = dns({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'inward.example.com': ['93.184.216.34', '10.0.0.7'],
    'metadata.example.com': ['169.254.169.254'],
    'v6-local.example.com': ['fe80::2'],
    localhost: ['127.0.0.1'],
  });

  it('accepts https to a public host and pins its first address', async () => {
    const checked = await checkCallbackUrl('https://Hooks.Example.com:8443/cb?x=1', { lookup });
    expect(checked.hostname).toBe('hooks.example.com');
    expect(checked.address).toEqual({ address: '93.184.216.34', family: 4 });
    expect(checked.url.pathname).toBe('/cb');
  });

  it('refuses other schemes, credentials, bad URLs and unresolvable hosts', async () => {
    expect(await refusal('http://hooks.example.com/cb', { lookup })).toEqual(['not_https', undefined]);
    expect(await refusal('ftp://hooks.example.com/cb', { lookup })).toEqual(['not_https', undefined]);
    expect(await refusal('https://user:pw@hooks.example.com/cb', { lookup })).toEqual(['credentials_in_url', undefined]);
    expect(await refusal('not a url', { lookup })).toEqual(['invalid_url', undefined]);
    expect(await refusal('https://nowhere.example.com/', { lookup })).toEqual(['unresolvable', undefined]);
    expect(isPermanent(new CallbackUrlError('unresolvable'))).toBe(false);
    expect(isPermanent(new CallbackUrlError('blocked_address'))).toBe(true);
  });

  it('refuses a host when any of its addresses points inwards', async () => {
    expect(await refusal('https://inward.example.com/', { lookup })).toEqual(['blocked_address', 'private']);
    expect(await refusal('https://metadata.example.com/', { lookup })).toEqual(['blocked_address', 'metadata']);
    expect(await refusal('https://v6-local.example.com/', { lookup })).toEqual(['blocked_address', 'link_local']);
    expect(await refusal('https://localhost:9000/', { lookup })).toEqual(['blocked_address', 'loopback']);
  });

  it('refuses IP literals in blocked ranges, in every spelling the URL parser accepts', async () => {
    expect(await refusal('https://127.0.0.1/', { lookup })).toEqual(['blocked_address', 'loopback']);
    expect(await refusal('https://2130706433/', { lookup })).toEqual(['blocked_address', 'loopback']);
    expect(await refusal('https://0x7f.1/', { lookup })).toEqual(['blocked_address', 'loopback']);
    expect(await refusal('https://[::1]/', { lookup })).toEqual(['blocked_address', 'loopback']);
    expect(await refusal('https://[::ffff:127.0.0.1]/', { lookup })).toEqual(['blocked_address', 'mapped_loopback']);
    expect(await refusal('https://169.254.169.254/latest/meta-data', { lookup })).toEqual(['blocked_address', 'metadata']);
    expect(await refusal('https://[fd00:ec2::254]/', { lookup })).toEqual(['blocked_address', 'metadata']);
    expect(await refusal('https://100.64.1.1/', { lookup })).toEqual(['blocked_address', 'cgnat']);
    expect(await refusal('https://0.0.0.0/', { lookup })).toEqual(['blocked_address', 'unspecified']);
  });

  it('lets allow-listed hosts through, but never over http', async () => {
    const allowHosts = parseAllowHosts(' 127.0.0.1, LOCALHOST ,[::1]');
    expect(allowHosts).toEqual(['127.0.0.1', 'localhost', '::1']);
    expect((await checkCallbackUrl('https://127.0.0.1:8443/', { allowHosts, lookup })).address.address).toBe('127.0.0.1');
    expect((await checkCallbackUrl('https://localhost/', { allowHosts, lookup })).address.address).toBe('127.0.0.1');
    expect((await checkCallbackUrl('https://[::1]/', { allowHosts, lookup })).address).toEqual({ address: '::1', family: 6 });
    expect(await refusal('http://127.0.0.1/', { allowHosts, lookup })).toEqual(['not_https', undefined]);
    expect(await refusal('https://10.0.0.1/', { allowHosts, lookup })).toEqual(['blocked_address', 'private']);
    expect(parseAllowHosts(undefined)).toEqual([]);
  });
});

describe('retry schedule', () => {
  const delays = [10_000, 60_000, 300_000];
  const t0 = Date.parse('2026-01-01T00:00:00Z');

  it('is due at once, then 10 s, 60 s and 300 s after each attempt, then never', () => {
    expect(nextAttemptAt(0, null, delays)).toBe(0);
    expect(nextAttemptAt(1, t0, delays)).toBe(t0 + 10_000);
    expect(nextAttemptAt(2, t0, delays)).toBe(t0 + 60_000);
    expect(nextAttemptAt(3, t0, delays)).toBe(t0 + 300_000);
    expect(nextAttemptAt(4, t0, delays)).toBeNull();
  });

  it('records attempts into the state the job shows, ending delivered or failed', () => {
    let state = initialDeliveryState('d-1', 'check_job.completed');
    expect(dueAt(state, delays)).toBe(0);
    for (let i = 0; i < 3; i += 1) {
      state = recordAttempt(state, { at: t0 + i, ok: false, statusCode: 500, error: 'http_status', retriable: true }, delays);
      expect(state.state).toBe('pending');
      expect(dueAt(state, delays)).toBe(t0 + i + delays[i]);
    }
    expect(state.next_attempt_at).toBe(new Date(t0 + 2 + 300_000).toISOString());
    const failed = recordAttempt(state, { at: t0 + 9, ok: false, statusCode: null, error: 'timeout', retriable: true }, delays);
    expect(failed).toMatchObject({ state: 'failed', attempts: 4, last_status: null, last_error: 'timeout', next_attempt_at: null, delivery_id: 'd-1' });
    expect(dueAt(failed, delays)).toBeNull();

    const delivered = recordAttempt(state, { at: t0 + 9, ok: true, statusCode: 204, error: null, retriable: true }, delays);
    expect(delivered).toMatchObject({ state: 'delivered', attempts: 4, last_status: 204, last_error: null, delivered_at: new Date(t0 + 9).toISOString() });
  });

  it('reads CALLBACK_RETRY_DELAYS_MS', () => {
    expect(parseRetryDelays(undefined)).toEqual([10_000, 60_000, 300_000]);
    expect(parseRetryDelays(' 50, 100,150 ')).toEqual([50, 100, 150]);
    expect(parseRetryDelays('')).toEqual([]);
    expect(() => parseRetryDelays('10s,60s')).toThrow(/CALLBACK_RETRY_DELAYS_MS/);
    expect(() => parseRetryDelays('-5')).toThrow(RangeError);
  });

  it('gives up at once when retrying cannot help', () => {
    const state = recordAttempt(
      initialDeliveryState('d-2', 'check_job.failed'),
      { at: t0, ok: false, statusCode: null, error: 'url_blocked_address:private', retriable: false },
      delays,
    );
    expect(state).toMatchObject({ state: 'failed', attempts: 1, event: 'check_job.failed' });
  });
});
