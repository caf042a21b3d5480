/**
 * The tests' and benches' network guard (docs/faults.md is about faults; this is the rule of
 * test/bench/README.md and the test suite): every TCP connection (net, tls, http, https, undici,
 * kafkajs, ssh2 all go through net.Socket#connect) and every DNS lookup must stay on loopback
 * (127.0.0.0/8, ::1). A name other than `localhost` is not even looked up: the query itself would
 * leave the machine. A test that needs a public address's handling injects its own lookup.
 *
 * Loaded by vitest's setupFiles (every test worker) and by the bench runner; it also puts itself
 * into NODE_OPTIONS so the processes a test spawns (npm start, run-service) carry it too.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const GUARD = Symbol.for('robinson.loopbackOnly');

export class OutsideLoopbackError extends Error {
  readonly code = 'ERR_OUTSIDE_LOOPBACK';
  constructor(what: string) {
    super(`test network guard: ${what} is outside loopback (127.0.0.0/8, ::1); tests and benches talk to loopback only`);
    this.name = 'OutsideLoopbackError';
  }
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (::ffff:127.x.y.z). */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '').split('%')[0].toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain)?.[1];
  if (mapped) return LOOPBACK.check(mapped, 'ipv4');
  if (net.isIPv4(plain)) return LOOPBACK.check(plain, 'ipv4');
  return net.isIPv6(plain) && LOOPBACK.check(plain, 'ipv6');
}

/** Names that may be looked up: IP literals on loopback and `localhost`. */
function mayLookUp(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return net.isIP(name.replace(/^\[|\]$/g, '')) !== 0 && isLoopbackAddress(name);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

function install(): void {
  const state = globalThis as unknown as Record<symbol, boolean>;
  if (state[GUARD]) return;
  state[GUARD] = true;

  const originalLookup = dns.lookup.bind(dns) as (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;
  const guardedLookup = (hostname: string, options: unknown, callback?: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'function' ? {} : typeof options === 'number' ? { family: options } : options ?? {}) as dns.LookupOptions;
    if (!mayLookUp(hostname)) {
      process.nextTick(() => cb(new OutsideLoopbackError(`a DNS lookup of ${hostname}`), opts.all ? [] : ''));
      return;
    }
    originalLookup(hostname, opts, (error, address, family) => {
      const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (!error && all.some((a) => !isLoopbackAddress(a))) cb(new OutsideLoopbackError(`${hostname} (resolved)`), opts.all ? [] : '');
      else cb(error, address, family);
    });
  };
  (dns as { lookup: unknown }).lookup = guardedLookup;
  const originalPromisesLookup = dns.promises.lookup.bind(dns.promises);
  (dns.promises as { lookup: unknown }).lookup = async (hostname: string, options?: dns.LookupOptions) => {
    if (!mayLookUp(hostname)) throw new OutsideLoopbackError(`a DNS lookup of ${hostname}`);
    const found = await originalPromisesLookup(hostname, options ?? {});
    const all = Array.isArray(found) ? found : [found];
    if (all.some((a) => !isLoopbackAddress(a.address))) throw new OutsideLoopbackError(`${hostname} (resolved)`);
    return found;
  };
  // Resolvers ask a name server directly: never needed on loopback.
  for (const target of [dns, dns.promises] as Array<Record<string, unknown>>) {
    for (const name of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveMx', 'resolveTxt', 'resolveSrv', 'resolveNs', 'reverse']) {
      if (typeof target[name] !== 'function') continue;
      target[name] = () => {
        throw new OutsideLoopbackError(`dns.${name}`);
      };
    }
  }
  syncBuiltinESMExports();

  const originalConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : typeof first === 'object' && first !== null ? first : null) as (net.TcpNetConnectOpts & net.IpcNetConnectOpts) | null;
    const host = options ? options.host : typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first)) ? (typeof args[1] === 'string' ? args[1] : 'localhost') : null;
    const isPath = options ? typeof options.path === 'string' : typeof first === 'string' && !/^\d+$/.test(first);
    if (!isPath) {
      const target = host ?? 'localhost';
      if (net.isIP(target.replace(/^\[|\]$/g, '')) !== 0 && !isLoopbackAddress(target)) {
        process.nextTick(() => this.destroy(new OutsideLoopbackError(`a connection to ${target}`)));
        return this;
      }
      // A name goes through the guarded lookup (options.lookup, when a caller gave one, is
      // checked the same way: its answers must be loopback).
      if (options && typeof options.lookup === 'function' && options.lookup !== guardedLookup) {
        const given = options.lookup;
        options.lookup = ((hostname: string, lookupOptions: dns.LookupOptions, cb: LookupCallback) => {
          given(hostname, lookupOptions, (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => {
            const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
            if (!error && all.some((a) => a && !isLoopbackAddress(a))) cb(new OutsideLoopbackError(`${hostname} (resolved by the caller's lookup)`), lookupOptions.all ? [] : '');
            else cb(error, address, family);
          });
        });
      }
    }
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  };

  // Processes the tests and benches spawn load the guard too.
  const self = `--import=${import.meta.url}`;
  if (!(process.env.NODE_OPTIONS ?? '').includes(self)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${self}`.trim();
}

install();
