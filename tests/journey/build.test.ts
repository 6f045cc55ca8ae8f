import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildJourneyAssets, loadJourneyAssets, writeJourneyAssets } from '@idv/journey';
import { withTempDir } from '../helpers/temp-dir.ts';

test('npm run build:journey writes the build that loadJourneyAssets() serves, byte for byte with its encodings', () =>
  withTempDir('idv-journey-dist-', async (dir) => {
    const built = await buildJourneyAssets();
    writeJourneyAssets(built, dir);
    const read = await loadJourneyAssets(dir);
    assert.deepEqual({ ...read, files: [...read.files].sort() }, { ...built, files: [...built.files].sort() });
  }));
