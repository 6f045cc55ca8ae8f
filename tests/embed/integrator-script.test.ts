import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { frameUrl, parseMessage } from '@idv/embed';

describe('integrator script (packages/embed)', () => {
  const token = 'A'.repeat(43);

  test('the frame address is the session url with path /embed and the same fragment', () => {
    assert.deepEqual(frameUrl(`https://journey.example.com/#${token}`), { src: `https://journey.example.com/embed#${token}`, origin: 'https://journey.example.com' });
    assert.deepEqual(frameUrl(`http://127.0.0.1:8081/#${token}`), { src: `http://127.0.0.1:8081/embed#${token}`, origin: 'http://127.0.0.1:8081' });
    assert.throws(() => frameUrl('https://journey.example.com/'), /#<token>/);
    assert.throws(() => frameUrl(`javascript:alert(1)//#${token}`), /http/);
  });

  test('only the messages of spec section 6 become events; anything else is ignored', () => {
    assert.deepEqual(parseMessage({ type: 'service:hello', version: 1 }), { type: 'hello' });
    assert.equal(parseMessage({ type: 'service:hello', version: 2 }), null);
    assert.deepEqual(parseMessage({ type: 'service:ready' }), { type: 'ready' });
    assert.deepEqual(parseMessage({ type: 'service:step', step: 'document' }), { type: 'step', step: 'document' });
    assert.equal(parseMessage({ type: 'service:step', step: 'results' }), null);
    assert.deepEqual(parseMessage({ type: 'service:completed', outcome: 'approved' }), { type: 'completed' }, 'extra fields are not passed on');
    assert.deepEqual(parseMessage({ type: 'service:ended', reason: 'expired' }), { type: 'ended', reason: 'expired' });
    assert.equal(parseMessage({ type: 'service:ended', reason: 'approved' }), null);
    assert.deepEqual(parseMessage({ type: 'service:resize', height: 640.4 }), { type: 'resize', height: 641 });
    for (const bad of [null, 'service:ready', 42, {}, { type: 'service:resize', height: -1 }, { type: 'service:resize', height: Infinity }, { type: 'other' }]) {
      assert.equal(parseMessage(bad), null, JSON.stringify(bad));
    }
  });
});
