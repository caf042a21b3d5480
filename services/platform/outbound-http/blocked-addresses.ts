/**
 * Which IP addresses a callback may never reach (docs/decisions.md §9): everything that is not a public
 * unicast address. Pure: text in, verdict out. IPv6 forms that carry an IPv4 address (mapped,
 * translated, compatible, NAT64, 6to4) are judged by the IPv4 address they carry; Teredo (whose
 * client address is hidden and whose relay decides where packets go) is refused outright
 * (docs/callbacks.md "Which URLs are called").
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Range {
  bytes: number[];
  prefix: number;
  label: string;
}

function v4(cidr: string, label: string): Range {
  const [address, prefix] = cidr.split('/');
  return { bytes: address.split('.').map(Number), prefix: Number(prefix), label };
}

function v6(cidr: string, label: string): Range {
  const [address, prefix] = cidr.split('/');
  return { bytes: parseIPv6(address)!, prefix: Number(prefix), label };
}

const IPV4_BLOCKED: Range[] = [
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.169.254/32', 'metadata'),
  v4('169.254.0.0/16', 'link_local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'reserved'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'reserved'),
  v4('203.0.113.0/24', 'reserved'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

const IPV6_BLOCKED: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('fd00:ec2::254/128', 'metadata'),
  v6('fc00::/7', 'private'),
  v6('fe80::/10', 'link_local'),
  v6('fec0::/10', 'link_local'),
  v6('ff00::/8', 'multicast'),
  v6('100::/64', 'reserved'),
  v6('2001::/32', 'teredo'),
  v6('2001::/23', 'reserved'),
  v6('2001:db8::/32', 'reserved'),
  v6('3fff::/20', 'reserved'),
  v6('5f00::/16', 'reserved'),
];

/** IPv6 prefixes that carry an IPv4 address to judge instead, and where it sits (byte offset). */
const IPV4_CARRIERS: Array<Range & { at: number }> = [
  { ...v6('::ffff:0:0/96', 'mapped'), at: 12 },
  { ...v6('::ffff:0:0:0/96', 'translated'), at: 12 },
  { ...v6('::/96', 'compatible'), at: 12 },
  { ...v6('64:ff9b::/96', 'nat64'), at: 12 },
  { ...v6('64:ff9b:1::/48', 'nat64'), at: 12 },
  { ...v6('2002::/16', '6to4'), at: 2 },
];

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (range.bytes[i] & mask)) return false;
  }
  return true;
}

/** 16 bytes of an IPv6 address (with `::`, an embedded dotted IPv4 tail, no zone), or null. */
export function parseIPv6(text: string): number[] | null {
  const address = text.replace(/^\[|\]$/g, '').split('%')[0];
  if (!isIPv6(address)) return null;
  let groups = address.split(':');
  const tail = groups[groups.length - 1];
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number);
    groups = [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  }
  const gap = groups.indexOf('');
  if (gap >= 0) {
    const head = groups.slice(0, gap).filter((g) => g !== '');
    const rest = groups.slice(gap + 1).filter((g) => g !== '');
    groups = [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  }
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** Why `address` must not be reached (`loopback`, `private`, ...), or null for a public address. */
export function blockedAddressReason(address: string): string | null {
  const plain = address.replace(/^\[|\]$/g, '');
  if (isIPv4(plain)) {
    const bytes = plain.split('.').map(Number);
    return IPV4_BLOCKED.find((range) => inRange(bytes, range))?.label ?? null;
  }
  const bytes = parseIPv6(plain);
  if (bytes === null) return 'not_an_ip';
  const carrier = IPV4_CARRIERS.find((range) => inRange(bytes, range));
  if (carrier) {
    // `::` and `::1` sit inside ::/96 but are IPv6's own unspecified and loopback addresses.
    const own = IPV6_BLOCKED.find((range) => range.prefix === 128 && inRange(bytes, range));
    if (own) return own.label;
    const reason = blockedAddressReason(bytes.slice(carrier.at, carrier.at + 4).join('.'));
    return reason === null ? null : `${carrier.label}_${reason}`;
  }
  return IPV6_BLOCKED.find((range) => inRange(bytes, range))?.label ?? null;
}
