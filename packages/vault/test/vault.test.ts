import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  CaseKey,
  LocalKeyWrapper,
  MasterKeyring,
  constantTimeEqual,
  generateMasterKey,
  newCaseKeys,
  parseMasterKey,
  rewrapCaseKey,
  secretHash,
} from '@idv/vault';

const masterKey = () => parseMasterKey(generateMasterKey());

describe('master keyring', () => {
  test('seals and opens, and the sealed form holds nothing of the value', () => {
    const ring = new MasterKeyring(masterKey());
    const sealed = ring.seal('Anne-Sophie Dupont', 'case:1:declared');
    assert.equal(sealed.includes('Dupont'), false);
    assert.equal(Buffer.from(sealed.split('.')[2], 'base64url').includes('Dupont'), false);
    assert.equal(ring.openText(sealed, 'case:1:declared'), 'Anne-Sophie Dupont');
  });

  test('refuses another place (associated data), a flipped bit and an unknown key', () => {
    const ring = new MasterKeyring(masterKey());
    const sealed = ring.seal('secret', 'api_key:a:signing');
    assert.throws(() => ring.open(sealed, 'api_key:b:signing'));
    const [v, id, payload] = sealed.split('.');
    const raw = Buffer.from(payload, 'base64url');
    raw[14] ^= 1;
    assert.throws(() => ring.open(`${v}.${id}.${raw.toString('base64url')}`, 'api_key:a:signing'));
    assert.throws(() => new MasterKeyring(masterKey()).open(sealed, 'api_key:a:signing'), /unknown master key/);
  });

  test('rotation: values sealed under a previous key still open and are reported stale', () => {
    const old = masterKey();
    const sealed = new MasterKeyring(old).seal('v', 'x');
    const rotated = new MasterKeyring(masterKey(), [old]);
    assert.equal(rotated.openText(sealed, 'x'), 'v');
    assert.equal(rotated.isStale(sealed), true);
    assert.equal(rotated.isStale(rotated.seal('v', 'x')), false);
  });

  test('a master key must be 32 bytes', () => {
    assert.throws(() => parseMasterKey(Buffer.alloc(16).toString('base64')), /32 bytes/);
    assert.throws(() => new MasterKeyring(Buffer.alloc(31)));
  });
});

describe('case keys (envelope encryption)', () => {
  test('each case has a data key and a distinct biometric key; neither opens the other\'s values', async () => {
    const wrapper = new LocalKeyWrapper(new MasterKeyring(masterKey()));
    const wrapped = await newCaseKeys(wrapper, 'case_a');
    assert.deepEqual(wrapped.map((k) => k.keyClass), ['data', 'biometric']);
    const [data, bio] = await Promise.all(wrapped.map((k) => CaseKey.unwrap(wrapper, 'case_a', k)));
    const portrait = randomBytes(2048);
    const sealed = bio.seal(portrait, 'piece:pc_1');
    assert.deepEqual(bio.open(sealed, 'piece:pc_1'), portrait);
    assert.throws(() => data.open(sealed, 'piece:pc_1'));
    assert.throws(() => bio.open(sealed, 'piece:pc_2'), 'bound to its purpose');
    const declared = data.sealJson({ surname: 'Müller' }, 'declared');
    assert.equal(Buffer.from(declared, 'base64').includes('Müller'), false);
    assert.deepEqual(data.openJson(declared, 'declared'), { surname: 'Müller' });
  });

  test('a wrapped key opens only for its own case (a key copied to another case is refused)', async () => {
    const wrapper = new LocalKeyWrapper(new MasterKeyring(masterKey()));
    const [k] = await newCaseKeys(wrapper, 'case_a');
    await assert.rejects(CaseKey.unwrap(wrapper, 'case_b', k));
  });

  test('master key rotation re-wraps data keys; data sealed before still opens under the new key alone', async () => {
    const old = masterKey();
    const before = new LocalKeyWrapper(new MasterKeyring(old));
    const [k] = await newCaseKeys(before, 'case_r');
    const sealed = (await CaseKey.unwrap(before, 'case_r', k)).seal('value', 'declared');
    const current = masterKey();
    const during = new LocalKeyWrapper(new MasterKeyring(current, [old]));
    assert.equal(during.isStale(k.wrapped), true);
    const rewrapped = await rewrapCaseKey(during, 'case_r', k);
    assert.equal(during.isStale(rewrapped.wrapped), false);
    const after = new LocalKeyWrapper(new MasterKeyring(current));
    assert.equal((await CaseKey.unwrap(after, 'case_r', rewrapped)).open(sealed, 'declared').toString(), 'value');
    await assert.rejects(CaseKey.unwrap(after, 'case_r', k), 'the old wrapping needs the retired key');
  });
});

describe('secrets', () => {
  test('hash is stable and constant-time equality compares content and length', () => {
    assert.equal(secretHash('a'), secretHash('a'));
    assert.notEqual(secretHash('a'), secretHash('b'));
    assert.equal(constantTimeEqual('abc', 'abc'), true);
    assert.equal(constantTimeEqual('abc', 'abd'), false);
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
  });
});
