import { isIPv4, isIPv6 } from 'node:net';

/**
 * The part of a client address that counters are kept for. An IPv4 address
 * (also written IPv4-mapped, `::ffff:203.0.113.7`) counts alone; an IPv6
 * address counts by its /64, the smallest network a provider hands out: one
 * subscriber can use any of its 2^64 addresses, so a count per address would
 * give it a fresh budget per request.
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros, lowercase. */
function expandIPv6(ip: string): string[] {
  let address = ip.split('%')[0].toLowerCase();
  // A trailing dotted quad (`::1.2.3.4`) is the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    address = `${address.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle =
    tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) =>
    parseInt(group, 16).toString(16),
  );
}
