import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { againstTarget, clopperPearson, errorRate, judgedNeededWithoutError } from '../../bench/checks/error-rate.ts';

// The benches' error rates carry an exact 95% interval (docs/liveness.md, "How sure the rates
// are"): a reader judges "0 of 16" by it, and the verdict against the issue's targets is read off it.

/** The binomial probabilities of 0..n errors in n trials at rate p. */
function binomial(n: number, p: number): number[] {
  const out = [Math.pow(1 - p, n)];
  for (let x = 0; x < n; x++) out.push(out[x]! * ((n - x) / (x + 1)) * (p / (1 - p)));
  return out;
}

test('Clopper–Pearson: the published value of 1 in 10, and the closed forms of none and all', () => {
  // R's binom.test(1, 10)$conf.int: 0.002528579 0.445016117.
  const [lo, hi] = clopperPearson(1, 10);
  assert.ok(Math.abs(lo - 0.002528579) < 1e-8 && Math.abs(hi - 0.445016117) < 1e-8, `${lo} ${hi}`);
  for (const n of [1, 16, 79, 217]) {
    assert.deepEqual(clopperPearson(0, n).map((v) => +v.toFixed(10)), [0, +(1 - Math.pow(0.025, 1 / n)).toFixed(10)]);
    assert.deepEqual(clopperPearson(n, n).map((v) => +v.toFixed(10)), [+Math.pow(0.025, 1 / n).toFixed(10), 1]);
  }
});

test('Clopper–Pearson: holds the true rate at least 95% of the time, exactly computed over every outcome', () => {
  for (const n of [16, 79, 217]) {
    for (const p of [0.01, 0.03, 0.05, 0.1, 0.3]) {
      const coverage = binomial(n, p).reduce((sum, pr, x) => {
        const [lo, hi] = clopperPearson(x, n);
        return sum + (lo <= p && p <= hi ? pr : 0);
      }, 0);
      assert.ok(coverage >= 0.95, `n ${n}, p ${p}: coverage ${coverage}`);
    }
  }
});

test('Clopper–Pearson: around the observed rate, symmetric between errors and successes, wider for fewer trials', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 400 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))), ([n, x]) => {
      const [lo, hi] = clopperPearson(x, n);
      assert.ok(lo <= x / n && x / n <= hi && lo >= 0 && hi <= 1);
      const [mlo, mhi] = clopperPearson(n - x, n);
      assert.ok(Math.abs(lo - (1 - mhi)) < 1e-9 && Math.abs(hi - (1 - mlo)) < 1e-9);
      // The same rate seen on twice the trials is known more narrowly.
      const [dlo, dhi] = clopperPearson(2 * x, 2 * n);
      assert.ok(dhi - dlo < hi - lo);
    }),
  );
});

test('errorRate: the rate to four decimals, its interval rounded outwards, nothing judged is no rate', () => {
  const r = errorRate(17, 217);
  assert.equal(r.rate, 0.0783);
  const [lo, hi] = clopperPearson(17, 217);
  assert.ok(r.ci95![0] <= lo && lo - r.ci95![0] < 1e-4 && r.ci95![1] >= hi && r.ci95![1] - hi < 1e-4);
  assert.deepEqual(errorRate(0, 16), { rate: 0, errors: 0, judged: 16, ci95: [0, 0.206] });
  assert.deepEqual(errorRate(0, 0), { rate: null, errors: 0, judged: 0, ci95: null });
  assert.throws(() => errorRate(3, 2), RangeError);
  assert.throws(() => errorRate(-1, 2), RangeError);
  assert.throws(() => errorRate(0.5, 2), RangeError);
});

test('against a target: met only when the whole interval is under it, not met when all of it is above', () => {
  // 17 of 217 generated prints let through against 5%: 4.6% to 12.3%, the set cannot tell.
  assert.equal(againstTarget(errorRate(17, 217), 0.05), 'undecided');
  assert.equal(againstTarget(errorRate(0, 16), 0.1), 'undecided');
  assert.equal(againstTarget(errorRate(0, 79), 0.1), 'met');
  assert.equal(againstTarget(errorRate(30, 100), 0.1), 'not_met');
  assert.equal(againstTarget(errorRate(0, 0), 0.1), 'undecided');
  // The number of error-free items that shows a target met, and one fewer that does not.
  for (const [target, needed] of [[0.03, 122], [0.05, 72], [0.1, 36]] as const) {
    assert.equal(judgedNeededWithoutError(target), needed);
    assert.equal(againstTarget(errorRate(0, needed), target), 'met');
    assert.equal(againstTarget(errorRate(0, needed - 1), target), 'undecided');
  }
});
