/**
 * SSRF guard for webhook targets (docs/design.md §7): no private, loopback, link-local, multicast or
 * otherwise non-public address, checked when an endpoint is saved (after DNS resolution) and
 * again at connect time (a custom `lookup` on the socket, so a name that resolves to a public
 * address when saved and to 127.0.0.1 when delivered is still refused). In live, `https` only.
 * `TIMBRE_WEBHOOKS_ALLOW_PRIVATE=true` lifts both (tests, local setups).
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ruleDetail } from '../rules.js';
const BLOCKED = new BlockList();
for (const [net, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
]) {
    BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
]) {
    BLOCKED.addSubnet(net, prefix, 'ipv6');
}
/** Whether an IP address is not a public unicast address. */
export function isBlockedAddress(ip) {
    const family = isIP(ip);
    if (family === 0)
        return true;
    if (family === 6) {
        const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
        if (mapped?.[1])
            return BLOCKED.check(mapped[1], 'ipv4');
        return BLOCKED.check(ip, 'ipv6');
    }
    return BLOCKED.check(ip, 'ipv4');
}
export class BlockedTargetError extends Error {
    constructor(message) {
        super(message);
        this.name = 'BlockedTargetError';
    }
}
/**
 * A `lookup` for http(s).request that refuses blocked addresses (runs at connect time, on the
 * addresses the socket will actually use).
 */
export function guardedLookup(allowPrivate) {
    return (hostname, options, callback) => {
        dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
            if (err)
                return callback(err, []);
            const list = addresses;
            const bad = allowPrivate ? undefined : list.find((a) => isBlockedAddress(a.address));
            if (bad)
                return callback(new BlockedTargetError(`${hostname} resolves to a non-public address (${bad.address})`), []);
            if (options.all)
                return callback(null, list);
            const first = list[0];
            if (!first)
                return callback(new Error(`${hostname} has no address`), []);
            callback(null, first.address, first.family);
        });
    };
}
/** Resolves a URL's host and refuses it when any address is blocked (at save time): the refusal names the rule. */
export async function checkTarget(url, opts) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
        return ruleDetail('url', 'url.scheme');
    if (opts.live && url.protocol !== 'https:' && !opts.allowPrivate)
        return ruleDetail('url', 'url.https_required');
    if (url.username || url.password)
        return ruleDetail('url', 'url.credentials');
    if (opts.allowPrivate)
        return null;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host))
        return isBlockedAddress(host) ? ruleDetail('url', 'url.not_public', { host, address: host }) : null;
    const addresses = await new Promise((resolve) => dnsLookup(host, { all: true }, (err, list) => resolve(err ? [] : list)));
    if (addresses.length === 0)
        return ruleDetail('url', 'url.unresolved', { host });
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    return bad ? ruleDetail('url', 'url.not_public', { host, address: bad.address }) : null;
}
