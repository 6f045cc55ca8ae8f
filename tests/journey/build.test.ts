import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildJourneyAssets, loadJourneyAssets, writeJourneyAssets } from '@idv/journey';

test('npm run build:journey writes the build that loadJourneyAssets() serves, byte for byte with its encodings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'idv-journey-dist-'));
  try {
    const built = await buildJourneyAssets();
    writeJourneyAssets(built, dir);
    const read = await loadJourneyAssets(dir);
    assert.deepEqual({ ...read, files: [...read.files].sort() }, { ...built, files: [...built.files].sort() });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
