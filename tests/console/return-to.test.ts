import { test } from 'node:test';
import assert from 'node:assert/strict';
import { safeReturnTo } from '../../apps/console/src/server/context.ts';

// Where the console sends the browser back after a re-authentication: a path of its own, never
// another site, however the path is written (dot segments, backslashes, encodings).
test('a return path that would leave the console becomes the home page', () => {
  for (const hostile of ['/..//evil.com/x', '/./..//evil.com', '//evil.com', '/\\evil.com', '/%2e%2e//evil.com/x', '/a/../..//evil.com', '/..\\/evil.com', 'https://evil.com/', 'evil.com', '/\n/evil.com', 42, null]) {
    const target = safeReturnTo(hostile);
    assert.ok(target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\'), `${String(hostile)} → ${target}`);
    assert.equal(new URL(target, 'https://console.example').origin, 'https://console.example', `${String(hostile)} → ${target}`);
  }
  assert.equal(safeReturnTo('/..//evil.com/x'), '/');
});

test('a path of the console is kept, with its query and normalised', () => {
  assert.equal(safeReturnTo('/operators?tab=invite'), '/operators?tab=invite');
  assert.equal(safeReturnTo('/cases/case_1#decision'), '/cases/case_1#decision');
  assert.equal(safeReturnTo('/flows/./standard/../standard'), '/flows/standard');
});
