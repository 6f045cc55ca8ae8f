import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LOCALES, STANDARD_FLOW, flowDefinitionProblems, localised, resolveLocale, type FlowDefinition } from '@idv/domain';
import en from '../../apps/journey/src/app/messages/en.ts';
import { pseudoMessages } from '../../apps/journey/src/app/messages/pseudo.ts';
import { ROOT } from '../helpers/processes.ts';

/**
 * Every language of LOCALES says everything the person can read: each message file of the
 * journey has exactly the keys of the English one (no text missing, none the English lacks),
 * none empty, with the same placeholders; the default questionnaire has each of its texts in
 * every language. The compiler checks the keys too (`Messages`); this is the check at run time,
 * which also catches a file typed loosely or a language added to the list without its texts.
 */

const MESSAGES_DIR = join(ROOT, 'apps', 'journey', 'src', 'app', 'messages');

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** What is wrong with a language's messages against the English ones (empty: nothing). */
function messageProblems(reference: Record<string, string>, candidate: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(reference)) if (!(key in candidate)) problems.push(`missing ${key}`);
  for (const key of Object.keys(candidate)) if (!(key in reference)) problems.push(`extra ${key} (the English has none)`);
  for (const [key, text] of Object.entries(candidate)) {
    if (!(key in reference)) continue;
    if (typeof text !== 'string' || !text.trim()) problems.push(`empty ${key}`);
    else if (placeholders(text).join() !== placeholders(reference[key]).join()) problems.push(`${key} has placeholders {${placeholders(text).join('}{')}}, the English {${placeholders(reference[key]).join('}{')}}`);
  }
  return problems;
}

async function messagesOf(locale: string): Promise<Record<string, unknown>> {
  // A relative template the test runner's bundler can follow (it bundles every file it matches).
  return (await import(`../../apps/journey/src/app/messages/${locale}.ts`)).default;
}

/** Every localised text of a flow's questionnaire, named by where it is. */
function questionnaireTexts(def: FlowDefinition): [string, Record<string, string | undefined>][] {
  return def.questionnaire.questions.flatMap((q) => [
    [`${q.id}`, q.label] as [string, Record<string, string | undefined>],
    ...q.answers.map((a) => [`${q.id}.${a.id}`, a.label] as [string, Record<string, string | undefined>]),
  ]);
}

describe('the languages of the journey', () => {
  test('the check finds a missing message, an extra one, an empty one and a lost placeholder', () => {
    const { help: _dropped, ...lacking } = en;
    assert.deepEqual(messageProblems(en, lacking), ['missing help']);
    assert.deepEqual(messageProblems(en, { ...en, help_extra: 'More help' }), ['extra help_extra (the English has none)']);
    assert.deepEqual(messageProblems(en, { ...en, retry: ' ' }), ['empty retry']);
    assert.deepEqual(messageProblems(en, { ...en, step_of: 'Step {n}' }), ['step_of has placeholders {n}, the English {n}{total}']);
  });

  test('twelve languages, each with a message file of its own', () => {
    assert.ok(LOCALES.length >= 12, `${LOCALES.length} languages`);
    for (const locale of ['en', 'fr', 'de', 'es', 'it', 'pt', 'nl', 'pl', 'ro', 'tr', 'ar', 'zh']) assert.ok((LOCALES as readonly string[]).includes(locale), locale);
    // No message file of a language the list does not name (it would never be shown), beside the
    // pseudo-locale of the layout tests.
    const files = readdirSync(MESSAGES_DIR).map((f) => f.replace(/\.ts$/, ''));
    assert.deepEqual(files.filter((f) => f !== 'pseudo').sort(), [...LOCALES].sort());
  });

  for (const locale of LOCALES) {
    test(`${locale}: every message of the English, and none it lacks`, async () => {
      assert.deepEqual(messageProblems(en, await messagesOf(locale)), []);
    });
  }

  test('the pseudo-locale has every message, each longer than the English, with its placeholders', async () => {
    const pseudo: Record<string, string> = pseudoMessages(en);
    assert.deepEqual(messageProblems(en, pseudo), []);
    for (const [key, text] of Object.entries(en)) assert.ok(pseudo[key].length >= text.length * 1.2, `${key}: "${pseudo[key]}"`);
  });

  test('the default questionnaire speaks every language, and no other', () => {
    const texts = questionnaireTexts(STANDARD_FLOW);
    assert.ok(texts.length >= 8);
    for (const [where, label] of texts) {
      assert.deepEqual(Object.keys(label).sort(), [...LOCALES].sort(), where);
      for (const locale of LOCALES) assert.ok(label[locale]?.trim(), `${where} in ${locale}`);
    }
    assert.deepEqual(flowDefinitionProblems(STANDARD_FLOW), []);
  });

  test('a flow writes its own questionnaire in any of the languages (English required), and in no other', () => {
    const withLabel = (label: Record<string, string>) => ({
      ...STANDARD_FLOW,
      questionnaire: { ...STANDARD_FLOW.questionnaire, questions: [{ ...STANDARD_FLOW.questionnaire.questions[0], label }] },
    });
    assert.deepEqual(flowDefinitionProblems(withLabel({ en: 'Origin of the funds?', ar: 'مصدر الأموال؟', zh: '资金来源？' })), []);
    assert.notDeepEqual(flowDefinitionProblems(withLabel({ en: 'Origin of the funds?', ja: '資金の出所は？' })), [], 'a language the journey does not speak');
    assert.notDeepEqual(flowDefinitionProblems(withLabel({ fr: 'Origine des fonds ?' })), [], 'without English');
    const label = { en: 'Origin of the funds?', tr: 'Paranın kaynağı?' };
    assert.equal(localised(label, 'tr'), 'Paranın kaynağı?');
    assert.equal(localised(label, 'tr-TR'), 'Paranın kaynağı?');
    assert.equal(localised(label, 'pl'), 'Origin of the funds?', 'English where the flow has no text in the language');
  });

  test("a session's locale picks its language, English otherwise, never the pseudo-locale", () => {
    const cases: [string, string][] = [
      ['ar', 'ar'],
      ['pt-BR', 'pt'],
      ['zh-CN', 'zh'],
      ['de-CH', 'de'],
      ['ja', 'en'],
      ['en-XA', 'en'],
      ['', 'en'],
    ];
    for (const [given, expected] of cases) assert.equal(resolveLocale(given), expected, given);
  });
});
