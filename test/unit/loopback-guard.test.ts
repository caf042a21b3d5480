/**
 * The tests' network guard (test/support/loopback-only.ts, loaded for every test file) refuses
 * any connection or lookup off loopback before a packet leaves: so a URL-guard or callback test
 * can never reach a real host. Every address here is refused locally; nothing is sent.
 */
import dns from 'node:dns';
import { lookup as lookupPromise } from 'node:dns/promises';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../support/loopback-only.ts';

const refusedConnect = (options: net.NetConnectOpts) => new Promise<Error>((resolve, reject) => {
  const socket = net.connect(options);
  socket.on('connect', () => {
    socket.destroy();
    reject(new Error('connected'));
  });
  socket.on('error', resolve);
});

describe('tests reach loopback only', () => {
  it('knows loopback: 127/8, ::1, ::ffff:127.x, nothing else', () => {
    for (const a of ['127.0.0.1', '127.9.8.7', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['8.8.8.8', '10.0.0.1', '169.254.169.254', '::', '::2', '2002:7f00:1::', '::ffff:8.8.8.8', 'fe80::1']) expect(isLoopbackAddress(a), a).toBe(false);
  });

  it('refuses connections to public and private addresses, by net, fetch and a caller-given lookup', async () => {
    expect((await refusedConnect({ host: '93.184.216.34', port: 443 })).message).toMatch(/outside loopback/);
    expect((await refusedConnect({ host: '10.0.0.1', port: 80 })).message).toMatch(/outside loopback/);
    expect((await refusedConnect({ host: 'example.com', port: 443 })).message).toMatch(/outside loopback/);
    const injected = ((_h: string, _o: unknown, cb: (e: null, a: string, f: number) => void) => cb(null, '93.184.216.34', 4)) as unknown as net.LookupFunction;
    expect((await refusedConnect({ host: 'hooks.example.com', port: 443, lookup: injected })).message).toMatch(/outside loopback/);
    await expect(fetch('https://93.184.216.34/')).rejects.toThrow();
  });

  it('refuses lookups of names other than localhost before asking any resolver; localhost resolves', async () => {
    await expect(lookupPromise('example.com')).rejects.toThrow(/outside loopback/);
    await expect(new Promise((resolve, reject) => dns.lookup('example.com', (e, a) => (e ? reject(e) : resolve(a))))).rejects.toThrow(/outside loopback/);
    expect(() => dns.resolve4('example.com', () => undefined)).toThrow(/outside loopback/);
    expect(isLoopbackAddress((await lookupPromise('localhost')).address)).toBe(true);
  });
});
