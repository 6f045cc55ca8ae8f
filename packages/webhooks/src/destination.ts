import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where the service may send webhooks (against server-side request forgery): in production https
 * to a public address only, checked at creation and at every send; the sandbox also allows http to
 * the local machine. WEBHOOK_ALLOW_PRIVATE_NETWORKS allows private addresses (https still required).
 */
type DestinationEnvironment = 'sandbox' | 'prod';

export interface DestinationPolicy {
  environment: DestinationEnvironment;
  allowPrivateNetworks: boolean;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/**
 * What an IPv6 address says of the IPv4 it carries: the IPv4 it reaches (mapped ::ffff:0:0/96,
 * NAT64 64:ff9b::/96, 6to4 2002::/16: judged as that IPv4), or `hidden` for the forms whose IPv4
 * may be anything and cannot be judged here (IPv4-compatible ::/96, translated ::ffff:0:0:0/96,
 * local-use NAT64 64:ff9b:1::/48, Teredo 2001::/32): those are refused outright.
 */
function embeddedIpv4(address: string): string | 'hidden' | null {
  const words = expandIpv6(address.toLowerCase());
  if (!words) return null;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  const fromWords = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (zeros(0, 5) && words[5] === 0xffff) return fromWords(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return fromWords(words[6]!, words[7]!);
  if (words[0] === 0x2002) return fromWords(words[1]!, words[2]!);
  if (zeros(0, 6) || (zeros(0, 4) && words[4] === 0xffff && words[5] === 0)) return 'hidden';
  if ((words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) || (words[0] === 0x2001 && words[1] === 0)) return 'hidden';
  return null;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 counts as two), or null. */
function expandIpv6(text: string): number[] | null {
  let address = text;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const bytes = dotted.slice(2).map(Number);
    if (bytes.some((b) => b > 255)) return null;
    address = `${dotted[1]}${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
  }
  const [head, tail] = address.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const h = parse(head);
  const t = address.includes('::') ? parse(tail) : [];
  const words = address.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill(0), ...t] : h;
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

/** True for an address a production webhook must never reach (see the ranges above). */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 === 'hidden') return true;
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse rather than guess
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) {
    const v4 = embeddedIpv4(host);
    return host === '::1' || (v4 !== null && v4 !== 'hidden' && v4.startsWith('127.'));
  }
  return false;
}

const MAX_URL_LENGTH = 2048;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * The rules that need no network: scheme, credentials, and literal hosts. A name in production
 * must still be resolved (resolvePublicAddresses) before it is accepted.
 */
export function checkEndpointUrl(raw: string, policy: DestinationPolicy): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `The url is longer than ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'The url is not an absolute URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'The url must use https.' };
  if (url.username || url.password) {
    return { ok: false, reason: 'The url must not carry a user name or password; authenticate deliveries with the signature.' };
  }
  if (url.hash) return { ok: false, reason: 'The url must not carry a fragment.' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.environment === 'prod') {
    if (url.protocol !== 'https:') return { ok: false, reason: 'In production the url must use https.' };
    if (!policy.allowPrivateNetworks) {
      if (isLoopbackHost(host)) return { ok: false, reason: 'In production the url must not point to the local machine.' };
      if (isIP(host) && isNonPublicAddress(host)) {
        return { ok: false, reason: 'In production the url must not point to a private, loopback, link-local or reserved address.' };
      }
    }
  } else if (url.protocol === 'http:' && !isLoopbackHost(host)) {
    return { ok: false, reason: 'In the sandbox, http is accepted only for localhost; use https for other hosts.' };
  }
  return { ok: true, url };
}

class DestinationRefusedError extends Error {
  readonly code = 'ERR_DESTINATION_REFUSED';
  constructor(readonly hostname: string) {
    super(`${hostname} resolves to a non-public address`);
  }
}

type LookupFn = typeof dnsLookup;

/**
 * A `lookup` for node:http(s) that refuses non-public addresses. Passing it to the request makes
 * the check apply to the very address the socket connects to, so a name cannot pass the check
 * and then resolve elsewhere for the connection (DNS rebinding).
 */
export function publicOnlyLookup(resolve: LookupFn = dnsLookup): LookupFn {
  const guarded = ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean; family?: number };
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return cb(err, opts.all ? [] : '', 0);
      const list = addresses as LookupAddress[];
      if (list.length === 0 || list.some((a) => isNonPublicAddress(a.address))) {
        return cb(new DestinationRefusedError(hostname), opts.all ? [] : '', 0);
      }
      if (opts.all) cb(null, list);
      else cb(null, list[0].address, list[0].family);
    });
  }) as LookupFn;
  return guarded;
}

/** At endpoint creation in production: every address the name resolves to must be public. */
export async function resolvesToPublicAddresses(hostname: string, timeoutMs = 3000): Promise<{ ok: true } | { ok: false; reason: string }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isNonPublicAddress(host) ? { ok: false, reason: 'The address is not public.' } : { ok: true };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
  });
  try {
    const addresses = await Promise.race([
      new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true }, (err, list) => (err ? reject(err) : resolve(list)))),
      timeout,
    ]);
    if (addresses.some((a) => isNonPublicAddress(a.address))) {
      return { ok: false, reason: `${host} resolves to a private, loopback, link-local or reserved address.` };
    }
    return { ok: true };
  } catch {
    return { ok: false, reason: `${host} could not be resolved.` };
  } finally {
    clearTimeout(timer);
  }
}
