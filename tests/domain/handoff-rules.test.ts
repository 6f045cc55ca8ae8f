import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HANDOFF_CODE_LENGTH, formatHandoffCode, handoffStatus, newHandoffCode, normaliseHandoffCode } from '@idv/domain';

/** The handoff's pure rules (docs/journey.md#continuing-on-a-phone): the code a person types, and where a handoff stands. */

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]+$/;

describe('handoff codes', () => {
  test('ten Crockford symbols, each symbol drawn evenly (50 bits a code)', () => {
    const counts = new Map<string, number>();
    const codes = new Set<string>();
    for (let i = 0; i < 3200; i++) {
      const code = newHandoffCode();
      assert.equal(code.length, HANDOFF_CODE_LENGTH);
      assert.match(code, CROCKFORD);
      codes.add(code);
      for (const c of code) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(codes.size, 3200, 'no repeat');
    assert.equal(counts.size, 32, 'every symbol appears');
    // 32,000 symbols, 1,000 expected each: far outside 800–1,200 only with a biased draw.
    for (const [c, n] of counts) assert.ok(n > 800 && n < 1200, `${c} drawn ${n} times`);
  });

  test('what a person types is read as the code: case, spaces, hyphens, and O, I, L for 0, 1, 1', () => {
    const code = 'K7M2Q0X1RT';
    assert.equal(formatHandoffCode(code), 'K7M2Q-0X1RT');
    for (const typed of ['K7M2Q-0X1RT', 'k7m2q0x1rt', ' K7M2Q 0X1RT ', 'k7m2q-ox1rt', 'K7M2QOXIRT', 'K7M2Q0XLRT']) {
      assert.equal(normaliseHandoffCode(typed), code, typed);
    }
    for (const wrong of ['', 'K7M2Q-0X1R', 'K7M2Q-0X1RTT', 'K7M2U-0X1RT', 'K7M2Q_0X1RT', 'K7M2Q-0X1RÉ']) assert.equal(normaliseHandoffCode(wrong), null, wrong);
  });
});

describe('where a handoff stands', () => {
  const now = new Date('2026-11-27T10:00:00Z');
  const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
  const base = { expiresAt: at(5), openedAt: null, supersededAt: null, phoneSessionExpiresAt: null };

  test('waiting until opened, replaced or past its ten minutes; opened while the phone session lives', () => {
    assert.equal(handoffStatus(base, now), 'waiting');
    assert.equal(handoffStatus({ ...base, expiresAt: now }, now), 'expired');
    assert.equal(handoffStatus({ ...base, supersededAt: at(-1) }, now), 'expired');
    assert.equal(handoffStatus({ ...base, openedAt: at(-1), phoneSessionExpiresAt: at(14) }, now), 'opened');
    assert.equal(handoffStatus({ ...base, expiresAt: at(-5), openedAt: at(-6), phoneSessionExpiresAt: at(9) }, now), 'opened', 'the code’s own end no longer matters once opened');
    assert.equal(handoffStatus({ ...base, openedAt: at(-16), phoneSessionExpiresAt: at(-1) }, now), 'expired');
  });
});
