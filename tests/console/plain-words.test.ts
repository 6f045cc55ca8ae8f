import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CASE_JOURNAL_ACTIONS, CHECK_MEASURES, CHECK_REASON_LIST, CHECK_TYPES, REASON_CODE_LIST, TASK_ONLY_REASONS } from '@idv/domain';
import { journalActionWords } from '../../apps/console/src/web/i18n/labels-journal.ts';
import { measureWords } from '../../apps/console/src/web/i18n/labels-measures.ts';
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

  test(`${locale}: every case journal action has its words`, () => {
    for (const action of Object.keys(CASE_JOURNAL_ACTIONS)) assertWords(action, journalActionWords(action, locale), `${locale} journal action`);
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
