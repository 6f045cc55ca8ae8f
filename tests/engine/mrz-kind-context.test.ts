import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLASS_COUNT, MRZ_ALPHABET } from '../../packages/engine/src/mrz/classifier.ts';
import { charactersInContext } from '../../packages/engine/src/mrz/kind-context.ts';

/**
 * Cell probabilities for a line: each cell is its character at `sure` (the rest spread evenly),
 * or, where the line holds `{A|B:p}`, A at p and B at 1 - p (the classifier hesitating).
 */
function cells(spec: string, sure = 0.97): { probs: Float32Array; count: number } {
  const parts = spec.match(/\{[^}]+\}|./g) ?? [];
  const probs = new Float32Array(parts.length * CLASS_COUNT);
  parts.forEach((part, k) => {
    const row = probs.subarray(k * CLASS_COUNT, (k + 1) * CLASS_COUNT);
    const m = /^\{(.)\|(.):([\d.]+)\}$/.exec(part);
    if (m) {
      row[MRZ_ALPHABET.indexOf(m[1]!)] = Number(m[3]);
      row[MRZ_ALPHABET.indexOf(m[2]!)] = 1 - Number(m[3]);
    } else {
      row.fill((1 - sure) / (CLASS_COUNT - 1));
      row[MRZ_ALPHABET.indexOf(part)] = sure;
    }
  });
  return { probs, count: parts.length };
}

const read = (spec: string) => {
  const { probs, count } = cells(spec);
  return charactersInContext(probs, count);
};

test('a character the classifier hesitates on takes the kind of its neighbours', () => {
  assert.equal(read('L{0|O:0.6}PEZ<<ALICIA'), 'LOPEZ<<ALICIA');
  assert.equal(read('H000{O|0:0.6}014<8'), 'H0000014<8');
  assert.equal(read('{S|5:0.55}MITH'), 'SMITH');
  // A run of hesitant cells goes with the neighbours on both sides.
  assert.equal(read('123{O|0:0.6}{O|0:0.6}45'), '1230045');
});

test('characters the classifier is sure of keep their kind, mixed or not', () => {
  // Document numbers and random lines mix letters and digits.
  assert.equal(read('C01X0006H1D<<6408125'), 'C01X0006H1D<<6408125');
  assert.equal(read('M9FP35V3B0RYS2110110F'), 'M9FP35V3B0RYS2110110F');
  // Surer than the cost of two kind changes (e^2 to 1): kept.
  assert.equal(read('AB{0|O:0.9}CD'), 'AB0CD');
});

test('fillers neighbour both kinds: beside them the classifier decides', () => {
  assert.equal(read('<<{0|O:0.6}<<'), '<<0<<');
  assert.equal(read('<<{O|0:0.6}<<'), '<<O<<');
  assert.equal(read(''), '');
});
