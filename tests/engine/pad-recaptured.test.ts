import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { RECAPTURED_PHOTOS, relabelRecaptured } from '../../bench/checks/pad-recaptured.ts';
import type { PadRow } from '../../bench/checks/pad-set.ts';

// The news photos that are themselves a television frame or a reproduced print leave the bona
// fide side of bench:pad's set (bench/checks/pad-recaptured.ts): a misspelt name would leave
// them there silently, and a relabelled row that stayed in a chosen half would be fitted on.

const row = (id: string, species: PadRow['species'], half: PadRow['half'] = 0): PadRow => ({ id, species, attack: false, half, person: 'p', face: true });

test('every photo named as a re-capture is a photo of the fixtures', () => {
  const names = Object.keys(RECAPTURED_PHOTOS);
  assert.ok(names.length >= 5);
  for (const id of names) {
    assert.match(id, /^lfw:/);
    assert.ok(existsSync(join(FIXTURES_DIR, 'faces', 'lfw-dev', id.slice(4))), `${id} is not in faces/lfw-dev`);
  }
});

test('a re-captured photo and the control filmed from it become a reported-only attack species; nothing else moves', () => {
  const [recaptured] = Object.keys(RECAPTURED_PHOTOS);
  const rows = [
    row(recaptured!, 'bona_fide_photos'),
    row(`control:${recaptured}:12345`, 'generated_bona_fide'),
    row(`print:${recaptured}:777`, 'generated_print'),
    row('lfw:Someone_Else/Someone_Else_0001.jpg', 'bona_fide_photos', 1),
    row('control:lfw:Someone_Else/Someone_Else_0001.jpg:9', 'generated_bona_fide', 1),
  ];
  rows[2]!.attack = true;
  const once = relabelRecaptured({ rows, portraitPairs: [] });
  assert.deepEqual(once.rows.map((r) => [r.species, r.attack, r.half]), [
    ['news_recapture', true, 2],
    ['news_recapture', true, 2],
    ['generated_print', true, 0],
    ['bona_fide_photos', false, 1],
    ['generated_bona_fide', false, 1],
  ]);
  // A set saved after relabelling and read back is relabelled again: the same rows.
  assert.deepEqual(relabelRecaptured(once), once);
  // The input is not changed.
  assert.equal(rows[0]!.species, 'bona_fide_photos');
});
