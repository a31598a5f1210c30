/**
 * SSRF guard for webhook targets: a URL whose host resolves to a loopback, link-local, private, shared (CGNAT),
 * multicast, reserved or unspecified address is refused, at registration and again at every delivery (the connection
 * uses {@link guardedLookup}, so a DNS answer that changed since registration cannot slip through; redirects are
 * never followed, see send.ts). Development mode (`DEV_MODE`) allows such targets, except cloud metadata services:
 * link-local 169.254.0.0/16 and fe80::/10, 100.100.100.200, fd00:ec2::254 and the metadata host names (issue 10 §4).
 *
 * Source: ../shared/reference/api-conventions.md (Webhooks: "guard against SSRF"); issue 5 §2; issue 10 §4.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { unprocessable } from '../errors';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Cloud metadata endpoints (AWS, GCP, Azure, Alibaba, …): refused even in development mode. */
const metadata = new BlockList();
metadata.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local: AWS, GCP, Azure, OpenStack at 169.254.169.254
metadata.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
metadata.addSubnet('fe80::', 10, 'ipv6'); // link-local
metadata.addAddress('fd00:ec2::254', 'ipv6'); // AWS IMDS over IPv6
/** Host names of metadata services (compared lower-case, without a trailing dot). */
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d), compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(ip: string): string | null {
  const m = /^(?:::ffff:|::|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m?.[1]) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex?.[1] && hex[2]) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** True when `ip` (v4 or v6 literal) is a public unicast address a webhook may be sent to. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !blocked.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4) return !blocked.check(v4, 'ipv4');
    return !blocked.check(ip, 'ipv6');
  }
  return false;
}

/** True when `ip` (v4 or v6 literal) is a cloud metadata address, refused even in development mode. */
export function isMetadataAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return metadata.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    return v4 ? metadata.check(v4, 'ipv4') : metadata.check(ip, 'ipv6');
  }
  return false;
}

/** Why `ip` may not be connected to, or null when it may (`allowPrivate`: development mode). */
function refusal(host: string, ip: string, allowPrivate: boolean): string | null {
  if (isMetadataAddress(ip)) return `${host} resolves to ${ip}, a cloud metadata address`;
  if (!allowPrivate && !isPublicAddress(ip)) return `${host} resolves to ${ip}, which is not a public address`;
  return null;
}

/** Raised when a webhook target is not allowed; `reason` is shown to the caller. */
export class ForbiddenTargetError extends Error {
  override readonly name = 'ForbiddenTargetError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Resolves the URL's host and checks every address.
 * @throws ForbiddenTargetError when the scheme is not http(s), the host does not resolve, any address is a cloud
 *   metadata address (always), or (unless `allowPrivate`) any address is not public.
 */
export async function assertPublicTarget(rawUrl: string, allowPrivate: boolean): Promise<void> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ForbiddenTargetError('not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ForbiddenTargetError('only http and https targets are allowed');
  if (url.username || url.password) throw new ForbiddenTargetError('URLs with credentials are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (METADATA_HOSTS.has(host.toLowerCase().replace(/\.$/, '')))
    throw new ForbiddenTargetError(`${host} is a cloud metadata host`);
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookupAll(host);
  } catch {
    // Development mode keeps its old leniency for names that do not resolve here (the connection re-checks).
    if (allowPrivate) return;
    throw new ForbiddenTargetError(`${host} does not resolve`);
  }
  for (const a of addresses) {
    const reason = refusal(host, a.address, allowPrivate);
    if (reason) throw new ForbiddenTargetError(reason);
  }
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))),
  );
}

/**
 * A `lookup` for `http.request` that fails the connection when the host resolves to a cloud metadata address
 * (always) or a non-public address (unless `allowPrivate`): the check and the connection use the same DNS answer.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const reason = refusal(hostname, a.address, allowPrivate);
        if (reason) return callback(new ForbiddenTargetError(reason), '', 0);
      }
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Refuses a target that the SSRF guard does not allow (unless DEV_MODE).
 * @throws ProblemError 422 `webhook_target_forbidden` naming `param`.
 */
export async function checkTarget(url: string, devMode: boolean, param = 'url'): Promise<void> {
  try {
    await assertPublicTarget(url, devMode);
  } catch (err) {
    if (err instanceof ForbiddenTargetError) {
      throw unprocessable('webhook_target_forbidden', `${param}: ${err.reason}`, { param });
    }
    throw err;
  }
}
