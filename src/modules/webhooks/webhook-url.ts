import { LookupAddress, LookupAllOptions, lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Address ranges a webhook may never reach unless WEBHOOK_ALLOW_PRIVATE is
 * set: everything that is not globally routable unicast (IANA special-purpose
 * registries), plus IPv6 forms that embed an IPv4 address, so `::ffff:7f00:1`
 * or a NAT64 prefix cannot smuggle a private IPv4 target past the check.
 */
// Two lists: Node checks IPv4 addresses against IPv6 rules as IPv4-mapped,
// so one list holding ::ffff:0:0/96 would refuse every IPv4 address.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NON_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID…)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/** True for a globally routable unicast address; false for anything else, including non-addresses. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4
    ? !NON_PUBLIC_V4.check(address, 'ipv4')
    : !NON_PUBLIC_V6.check(address, 'ipv6');
}

export interface UrlPolicy {
  /** Live-mode webhooks must use https. */
  requireHttps: boolean;
  allowPrivate: boolean;
}

export class WebhookUrlRefused extends Error {}

/** The host of a parsed URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Everything that can be decided without DNS: scheme, credentials, literal
 * addresses (the WHATWG parser has already normalised `127.1`, `0x7f000001`,
 * `2130706433` and `0177.0.0.1` to `127.0.0.1`) and local names. Names are
 * checked again at connect time on the resolved address by `guardedLookup`.
 * Returns the parsed URL, or throws WebhookUrlRefused with a reason.
 */
export function checkWebhookUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('The url must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookUrlRefused('The url must be an http(s) URL.');
  }
  if (policy.requireHttps && url.protocol !== 'https:') {
    throw new WebhookUrlRefused('Live-mode webhooks must use an https URL.');
  }
  if (url.username || url.password) {
    throw new WebhookUrlRefused('The url may not contain credentials.');
  }
  if (policy.allowPrivate) return url;
  const host = bareHost(url);
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) {
      throw new WebhookUrlRefused(
        'The url points at a private or reserved address.',
      );
    }
    return url;
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name.endsWith('.local') ||
    name.endsWith('.internal') ||
    !name.includes('.')
  ) {
    throw new WebhookUrlRefused('The url must name a public host.');
  }
  return url;
}

/** Resolves a host name to every address it has (dns.lookup with all: true). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    const options: LookupAllOptions = { all: true, verbatim: true };
    dnsLookup(hostname, options, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The `lookup` given to node:http(s): resolves the name and refuses the
 * connection if any address is not public. The socket then connects to an
 * address that was checked here, so DNS rebinding between a check and the
 * connect is impossible.
 */
export function guardedLookup(resolver: Resolver, allowPrivate: boolean) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    resolver(hostname).then(
      (found) => {
        const family =
          options.family === 6 || options.family === 'IPv6'
            ? 6
            : options.family === 4 || options.family === 'IPv4'
              ? 4
              : 0;
        const addresses = found.filter(
          (a) => family === 0 || a.family === family,
        );
        if (addresses.length === 0) {
          callback(
            Object.assign(new Error(`No address for ${hostname}`), {
              code: 'ENOTFOUND',
            }),
            [],
          );
          return;
        }
        if (!allowPrivate) {
          const refused = addresses.find((a) => !isPublicAddress(a.address));
          if (refused) {
            callback(
              Object.assign(
                new WebhookUrlRefused(
                  `${hostname} resolves to the non-public address ${refused.address}`,
                ),
                { code: 'EADDRNOTPUBLIC' },
              ),
              [],
            );
            return;
          }
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
