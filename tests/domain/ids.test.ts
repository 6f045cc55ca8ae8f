import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idFloor, newId } from '@idv/domain';

test('idFloor: below every id made at or after that millisecond, above every id made before', () => {
  const at = Date.UTC(2026, 10, 25, 8, 0, 0);
  for (let i = 0; i < 200; i++) {
    assert.ok(idFloor('dlv', at) <= newId('dlv', at));
    assert.ok(idFloor('dlv', at) <= newId('dlv', at + 1 + i));
    assert.ok(idFloor('dlv', at) > newId('dlv', at - 1 - i));
  }
});
