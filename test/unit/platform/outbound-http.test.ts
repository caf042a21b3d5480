/** The URL guard of callbacks and connectors (docs/callbacks.md "Which URLs are called"). */
import { describe, expect, it } from 'vitest';
import { isPermanent } from '../../../services/platform/errors.ts';
import {
  blockedAddressReason, CallbackUrlError, checkCallbackUrl, parseAllowHosts, type LookupAll, type UrlRefusal,
} from '../../../services/platform/outbound-http/index.ts';

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
