import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEndpointUrl, isNonPublicAddress, publicOnlyLookup, resolvesToPublicAddresses } from '@idv/webhooks';

const prod = { environment: 'prod' as const, allowPrivateNetworks: false };
const sandbox = { environment: 'sandbox' as const, allowPrivateNetworks: false };

describe('destination rules (server-side request forgery)', () => {
  test('classifies loopback, private, link-local, unique-local, reserved and IPv4-in-IPv6 addresses as non-public', () => {
    const nonPublic = [
      '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254',
      '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.10',
      '::1', '::', 'fe80::1', 'fd12:3456::1', 'fc00::1', 'ff02::1', '2001:db8::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a00:1', '64:ff9b::a9fe:a9fe', '2002:c0a8:101::1', 'not-an-ip',
    ];
    for (const a of nonPublic) assert.equal(isNonPublicAddress(a), true, a);
    for (const a of ['8.8.8.8', '93.184.215.14', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4007:80c::200e']) {
      assert.equal(isNonPublicAddress(a), false, a);
    }
  });

  test('IPv6 forms that carry an IPv4 loopback or private address, or hide one, are non-public', () => {
    // IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96 with a
    // private IPv4, and the local-use 64:ff9b:1::/48), Teredo (2001::/32), in hex and dotted forms.
    for (const a of [
      '::7f00:1', '::127.0.0.1', '::a00:1', '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1',
      '64:ff9b:1::1', '64:ff9b:1:ffff::8.8.8.8', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ]) {
      assert.equal(isNonPublicAddress(a), true, a);
    }
    // A public IPv4 reached through NAT64 or mapped stays public.
    for (const a of ['64:ff9b::808:808', '::ffff:8.8.8.8', '2002:808:808::1']) assert.equal(isNonPublicAddress(a), false, a);
    for (const url of ['https://[::7f00:1]/', 'https://[::127.0.0.1]/', 'https://[::ffff:0:7f00:1]/', 'https://[64:ff9b:1::1]/', 'https://[2001::1]/']) {
      assert.equal(checkEndpointUrl(url, prod).ok, false, url);
    }
  });

  test('production accepts https on a public address only', () => {
    assert.equal(checkEndpointUrl('https://93.184.215.14/hooks', prod).ok, true);
    assert.equal(checkEndpointUrl('https://hooks.example.com/idv?src=1', prod).ok, true, 'names are resolved separately');
    for (const url of [
      'http://hooks.example.com/',
      'https://localhost/',
      'https://api.localhost/',
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/',
      'https://[fd00::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://0.0.0.0/',
      'https://2130706433/', // 127.0.0.1 written as a number
      'ftp://hooks.example.com/',
      'https://user:pass@hooks.example.com/',
      'https://hooks.example.com/#frag',
      'not a url',
    ]) {
      assert.equal(checkEndpointUrl(url, prod).ok, false, url);
    }
  });

  test('the sandbox also accepts http, but only to the local machine', () => {
    for (const url of ['http://localhost:3000/hooks', 'http://127.0.0.1:9/', 'http://[::1]:8080/', 'https://hooks.example.com/']) {
      assert.equal(checkEndpointUrl(url, sandbox).ok, true, url);
    }
    assert.equal(checkEndpointUrl('http://hooks.example.com/', sandbox).ok, false);
    assert.equal(checkEndpointUrl('http://10.0.0.5/', sandbox).ok, false);
  });

  test('an installation may allow its private network; https stays required in production', () => {
    const open = { environment: 'prod' as const, allowPrivateNetworks: true };
    assert.equal(checkEndpointUrl('https://10.0.0.5/hooks', open).ok, true);
    assert.equal(checkEndpointUrl('http://10.0.0.5/hooks', open).ok, false);
  });

  test('a name is resolved at creation and refused when any of its addresses is not public', async () => {
    const local = await resolvesToPublicAddresses('localhost');
    assert.equal(local.ok, false);
    const unknown = await resolvesToPublicAddresses('no-such-host.invalid');
    assert.equal(unknown.ok, false);
    assert.deepEqual(await resolvesToPublicAddresses('93.184.215.14'), { ok: true });
  });

  test('the send-time lookup refuses a name that resolves to a private address', async () => {
    const lookup = publicOnlyLookup();
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', { all: true }, (e) => resolve(e)));
    assert.equal(err?.code, 'ERR_DESTINATION_REFUSED');
    // A resolver answering a public address passes, one answering a private one anywhere in the list does not.
    const fake = (addresses: string[]) =>
      publicOnlyLookup(((_h: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
        cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })))) as never);
    const ok = await new Promise<string>((resolve) => fake(['93.184.215.14'])('x.test', {}, (_e, address) => resolve(address as string)));
    assert.equal(ok, '93.184.215.14');
    const mixed = await new Promise<NodeJS.ErrnoException | null>((resolve) => fake(['93.184.215.14', '10.0.0.1'])('x.test', {}, (e) => resolve(e)));
    assert.equal(mixed?.code, 'ERR_DESTINATION_REFUSED');
  });
});
