import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CASE_JOURNAL_ACTIONS, CHECK_MEASURES, CHECK_REASON_LIST, CHECK_TYPES, isFlagMeasure, REASON_CODE_LIST, TASK_ONLY_REASONS } from '@idv/domain';
import { journalActionWords, personActorWords } from '../../apps/console/src/web/i18n/labels-journal.ts';
import { measureValue, measureWords, orderedMeasures } from '../../apps/console/src/web/i18n/labels-measures.ts';
import { LOCALES } from '../../apps/console/src/web/i18n/locale.ts';
import { checkReasonWords, checkTypeWords, decisionReasonWords } from '../../apps/console/src/web/i18n/reasons.ts';

/**
 * Issue 37, plain words: every code of the service's catalogues (check types, check and task
 * reasons, decision reasons, every check's measures, the case journal's actions) has its words in
 * each language of the console. The console falls back to the raw code for a code it does not
 * know; here that fallback is a failure. Words never look like a code themselves.
 */
const CODE_LIKE = /\b[a-z]+(?:_[a-z]+)+\b|\b[a-z_]+\.[a-z_]+\b/;

function assertWords(code: string, words: string, where: string): void {
  assert.notEqual(words, code, `${where}: ${code} has no words`);
  assert.ok(words.trim().length > 1, `${where}: ${code} has empty words`);
  assert.doesNotMatch(words, CODE_LIKE, `${where}: the words of ${code} look like a code`);
}

for (const locale of LOCALES) {
  test(`${locale}: every check type, check reason, task reason and decision reason has its words`, () => {
    for (const type of CHECK_TYPES) assertWords(type, checkTypeWords(type, locale), `${locale} check type`);
    for (const reason of [...CHECK_REASON_LIST, ...Object.keys(TASK_ONLY_REASONS)]) assertWords(reason, checkReasonWords(reason, locale), `${locale} check reason`);
    for (const reason of REASON_CODE_LIST) assertWords(reason, decisionReasonWords(reason, locale), `${locale} decision reason`);
  });

  test(`${locale}: every measure of every check has its words`, () => {
    let n = 0;
    for (const [type, measures] of Object.entries(CHECK_MEASURES)) {
      for (const name of Object.keys(measures)) {
        assertWords(name, measureWords(type, name, locale), `${locale} ${type} measure`);
        n++;
      }
    }
    assert.ok(n >= 80, `only ${n} measures`);
  });

  test(`${locale}: every case journal action, and the journey's actor, has its words`, () => {
    for (const action of Object.keys(CASE_JOURNAL_ACTIONS)) assertWords(action, journalActionWords(action, locale), `${locale} journal action`);
    assertWords('person', personActorWords(locale), `${locale} actor`);
  });
}

test('a code the console does not know is shown as itself (and so would fail the tests above)', () => {
  assert.equal(measureWords('mrz', 'made_up', 'fr'), 'made_up');
  assert.equal(measureWords('made_up', 'found', 'en'), 'found');
  assert.equal(journalActionWords('case.made_up', 'fr'), 'case.made_up');
  assert.equal(checkReasonWords('made_up', 'en'), 'made_up');
});

test('French words are French: no measure or journal action keeps its English words', () => {
  for (const [type, measures] of Object.entries(CHECK_MEASURES)) {
    for (const name of Object.keys(measures)) assert.notEqual(measureWords(type, name, 'fr'), measureWords(type, name, 'en'), `${type}.${name}`);
  }
  for (const action of Object.keys(CASE_JOURNAL_ACTIONS)) assert.notEqual(journalActionWords(action, 'fr'), journalActionWords(action, 'en'), action);
});

test('a 1/0 flag reads yes or no; other values as numbers in the language; measures in the catalogue order', () => {
  assert.equal(measureValue('document_found', 1, 'fr'), 'oui');
  assert.equal(measureValue('surname_agrees', 0, 'en'), 'no');
  assert.equal(measureValue('sharpness', 1624, 'fr'), '1624');
  assert.equal(measureValue('text_density', 0.02614, 'fr'), '0,026');
  assert.equal(measureValue('similarity', 0.5, 'en'), '0.5');
  const flags = Object.values(CHECK_MEASURES).flatMap((m) => Object.keys(m)).filter(isFlagMeasure);
  assert.ok(flags.length >= 20, 'the flags are measures of the catalogue');
  assert.deepEqual(
    orderedMeasures('mrz', { codes_valid: 1, made_up: 3, found: 1, confidence: 0.9 }).map(([n]) => n),
    ['found', 'confidence', 'codes_valid', 'made_up'],
  );
});
