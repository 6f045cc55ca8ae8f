import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AA_TEXT_CONTRAST, JOURNEY_TEXT_COLORS, buttonLabelColor, checkAppearance, contrastRatio } from '@idv/domain';

const hex = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(
  ([r, g, b]) => '#' + [r, g, b].map((c) => c.toString(16).padStart(2, '0')).join(''),
);

describe('WCAG contrast', () => {
  test('known ratios: black on white 21:1, #777 on white 4.48:1, a colour with itself 1:1', () => {
    assert.equal(contrastRatio('#000000', '#ffffff'), 21);
    assert.equal(contrastRatio('#777777', '#ffffff').toFixed(2), '4.48');
    assert.equal(contrastRatio('#0b57d0', '#0b57d0'), 1);
    assert.equal(contrastRatio('#595959', '#ffffff').toFixed(2), '7.00');
  });

  test('symmetric and between 1 and 21', () => {
    fc.assert(
      fc.property(hex, hex, (a, b) => {
        const r = contrastRatio(a, b);
        return r >= 1 && r <= 21 && Math.abs(r - contrastRatio(b, a)) < 1e-12;
      }),
    );
  });
});

describe('appearance check', () => {
  test('whatever is accepted keeps every text of the journey at AA contrast', () => {
    fc.assert(
      fc.property(hex, hex, (primary, background) => {
        const c = checkAppearance({ display_name: null, primary_color: primary, background_color: background });
        if (!c.ok) return true;
        const texts = Object.values(JOURNEY_TEXT_COLORS).map((t) => contrastRatio(t, c.value.backgroundColor));
        return (
          texts.every((r) => r >= AA_TEXT_CONTRAST) &&
          contrastRatio(c.value.primaryColor, c.value.backgroundColor) >= AA_TEXT_CONTRAST &&
          contrastRatio(c.value.primaryColor, buttonLabelColor(c.value.primaryColor)) >= AA_TEXT_CONTRAST
        );
      }),
      { numRuns: 2000 },
    );
  });

  test('what is refused names the field that fails first, with the contrast found', () => {
    const light = checkAppearance({ display_name: null, primary_color: '#ffcc00', background_color: '#ffffff' });
    assert.deepEqual(light.ok ? null : light.field, 'primary_color');
    const mid = checkAppearance({ display_name: null, primary_color: '#3f7f9f', background_color: '#ffffff' });
    assert.equal(mid.ok, false);
    const dark = checkAppearance({ display_name: null, primary_color: '#0b57d0', background_color: '#202020' });
    assert.deepEqual(dark.ok ? null : [dark.field, /ink/.test(dark.message)], ['background_color', true]);
    const ok = checkAppearance({ display_name: ' Ma Banque ', primary_color: '#1D4ED8', background_color: '#F8FAFC' });
    assert.deepEqual(ok, { ok: true, value: { displayName: 'Ma Banque', primaryColor: '#1d4ed8', backgroundColor: '#f8fafc' } });
  });
});
