import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CHECK_REASON_LIST, CHECK_REASONS, CHECK_TYPES } from '@idv/domain';

const doc = readFileSync(new URL('../../docs/checks.md', import.meta.url), 'utf8');

test('docs/checks.md lists exactly the closed list of check reasons, each with its check and label', () => {
  const section = doc.slice(doc.indexOf('## Reasons'), doc.indexOf('## The decision'));
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| ([a-z_]+) \| (.+) \|$/gm)].map((m) => ({ reason: m[1], check: m[2], label: m[3] }));
  assert.deepEqual(rows.map((r) => r.reason).sort(), [...CHECK_REASON_LIST].sort());
  for (const r of rows) {
    const known = CHECK_REASONS[r.reason as keyof typeof CHECK_REASONS];
    assert.equal(r.check, known.check, r.reason);
    assert.equal(r.label, known.label, r.reason);
  }
});

test('docs/checks.md describes every check type', () => {
  const section = doc.slice(doc.indexOf('## The checks'), doc.indexOf('## Reasons'));
  const types = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(types.sort(), [...CHECK_TYPES].sort());
});
