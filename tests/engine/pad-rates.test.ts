import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ratesByBand } from '../../bench/checks/pad-rates.ts';
import type { PadRow } from '../../bench/checks/pad-set.ts';

// bench:pad's rates by the simulated lens blur (docs/liveness.md, "Where the prints let through
// come from"): each row in the band of its value, the rows without it or without a face left
// out, errors counted the ISO way (an attack not flagged, a bona fide flagged).

const row = (id: string, attack: boolean, blur?: number, face = true): PadRow => ({
  id, species: attack ? 'generated_print' : 'generated_bona_fide', attack, half: 1, person: id, face,
  ...(blur === undefined ? {} : { camera: { blur, noise: 2, jpegQuality: 80 } }),
});

test('rates by band: each row in its band (a cut belongs to the band above), errors as APCER or BPCER, rows without the value or a face left out', () => {
  const flaggedIds = new Set(['b', 'e', 'h']);
  const rows = [
    row('a', true, 0.3), row('b', true, 0.54),
    row('c', true, 0.55), row('d', true, 0.79), row('e', true, 0.6),
    row('f', true, 0.8), row('g', true, 1),
    row('h', false, 0.9), row('i', false, 0.4),
    row('j', true), row('k', true, 0.9, false),
  ];
  const bands = ratesByBand(rows, (r) => r.camera?.blur, [0.55, 0.8], (r) => flaggedIds.has(r.id));
  assert.deepEqual(Object.keys(bands), ['<0.55', '0.55-0.8', '>=0.8']);
  // <0.55: a (attack let through: error), b (flagged: right), i (bona fide not flagged: right).
  assert.deepEqual(bands['<0.55'], { rate: 0.3333, errors: 1, judged: 3 });
  // 0.55-0.8: c and d let through, e flagged.
  assert.deepEqual(bands['0.55-0.8'], { rate: 0.6667, errors: 2, judged: 3 });
  // >=0.8: f and g let through, h a bona fide flagged; k has no face, j no blur.
  assert.deepEqual(bands['>=0.8'], { rate: 1, errors: 3, judged: 3 });
  assert.deepEqual(ratesByBand([], (r) => r.camera?.blur, [0.5], () => false), { '<0.5': { rate: 0, errors: 0, judged: 0 }, '>=0.5': { rate: 0, errors: 0, judged: 0 } });
});
