import assert from 'node:assert/strict';
import { test } from 'node:test';
import { againstTargets, ratesByBand, speciesRates } from '../../bench/checks/pad-rates.ts';
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
  assert.deepEqual(bands['<0.55'], { rate: 0.3333, errors: 1, judged: 3, ci95: [0.0084, 0.9058] });
  // 0.55-0.8: c and d let through, e flagged.
  assert.deepEqual(bands['0.55-0.8'], { rate: 0.6667, errors: 2, judged: 3, ci95: [0.0942, 0.9916] });
  // >=0.8: f and g let through, h a bona fide flagged; k has no face, j no blur.
  assert.deepEqual(bands['>=0.8'], { rate: 1, errors: 3, judged: 3, ci95: [0.2924, 1] });
  // A band that judged nothing has no rate (not 0%).
  const empty = { rate: null, errors: 0, judged: 0, ci95: null };
  assert.deepEqual(ratesByBand([], (r) => r.camera?.blur, [0.5], () => false), { '<0.5': empty, '>=0.5': empty });
});

test('species rates: per species the ISO error, its interval and the people it comes from; stills without a face asked again, not judged', () => {
  const rows: PadRow[] = [
    ...['p1', 'p1', 'p1', 'p2'].map((person, k) => ({ ...row(`print${k}`, true), species: 'pad_dev_print' as const, person })),
    ...['q1', 'q2'].map((person, k) => ({ ...row(`live${k}`, false), species: 'bona_fide_pad_dev' as const, person })),
    { ...row('lost', true, undefined, false), species: 'pad_dev_print' as const, person: 'p3' },
  ];
  // print0 is let through (an APCER error), live1 refused (a BPCER error).
  const flagged = new Set(['print1', 'print2', 'print3', 'live1']);
  const rates = speciesRates(rows, (r) => flagged.has(r.id));
  const prints = rates.find((r) => r.species === 'pad_dev_print')!;
  assert.deepEqual(prints, { species: 'pad_dev_print', stills: 5, no_face: 1, people: 2, rate: 0.25, errors: 1, judged: 4, ci95: [0.0063, 0.8059] });
  const live = rates.find((r) => r.species === 'bona_fide_pad_dev')!;
  assert.deepEqual([live.rate, live.errors, live.judged, live.people], [0.5, 1, 2, 2]);

  // Targets: 10% for pad-dev's prints, 3% for bona fide, 5% for generated attacks, none for the
  // real replays; 4 stills cannot show any of them met.
  const targets = againstTargets([...rates, { ...prints, species: 'real_screen_replay' }, { ...prints, species: 'generated_print', errors: 0, judged: 80, rate: 0 }]);
  assert.deepEqual(Object.keys(targets).sort(), ['bona_fide_pad_dev', 'generated_print', 'pad_dev_print']);
  assert.equal(targets.pad_dev_print!.target, 0.1);
  assert.equal(targets.pad_dev_print!.verdict, 'undecided');
  assert.equal(targets.pad_dev_print!.judged_needed_without_error, 36);
  assert.equal(targets.bona_fide_pad_dev!.target, 0.03);
  assert.equal(targets.generated_print!.verdict, 'met');
});
