import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { createClient, createFlowVersion, queryRows, type Database } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { freshDatabase } from '../helpers/database.ts';

/**
 * Migration 0016 moves flows set on the old face descriptor's scale to the standard thresholds of
 * the new one (docs/face-match.md), and leaves flows already on the new scale alone. Run again
 * on a migrated database (its statement is what the migrator ran), on both databases.
 */
const MIGRATION = readFileSync(new URL('../../packages/db/migrations/0016_face_thresholds.sql', import.meta.url), 'utf8');

let database: Database;
let drop: () => Promise<void>;
before(async () => ({ database, drop } = await freshDatabase()));
after(() => drop());

const withFaces = (match: number, review: number): FlowDefinition => ({ ...structuredClone(STANDARD_FLOW), checks: { ...STANDARD_FLOW.checks, face_match_max_distance: match, face_review_max_distance: review } });

test('flows on the old scale take the new standard thresholds; flows on the new scale keep theirs', async () => {
  const now = new Date();
  const client = await createClient(database.db, 'migration test', now);
  const tenant = { clientId: client.id, environment: 'sandbox' as const };
  const old = await database.db.transaction((tx) => createFlowVersion(tx, tenant, 'old-standard', withFaces(0.63, 0.7), now, true));
  const custom = await database.db.transaction((tx) => createFlowVersion(tx, tenant, 'old-custom', withFaces(0.58, 0.66), now, false));
  const current = await database.db.transaction((tx) => createFlowVersion(tx, tenant, 'new', withFaces(1.02, 1.12), now, true));

  await database.db.execute(sql.raw(MIGRATION));

  const rows = await queryRows<{ id: string; definition: FlowDefinition; status: string; version: number }>(database.db, sql`SELECT id, definition, status, version FROM flows WHERE client_id = ${client.id}`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const faces = (id: string) => [byId.get(id)!.definition.checks.face_match_max_distance, byId.get(id)!.definition.checks.face_review_max_distance];
  assert.deepEqual(faces(old.id), [1.068, 1.146]);
  assert.deepEqual(faces(custom.id), [1.068, 1.146]);
  assert.deepEqual(faces(current.id), [1.02, 1.12], 'a flow already on the new scale is left as it is');
  assert.deepEqual([byId.get(old.id)!.status, byId.get(old.id)!.version], ['active', 1], 'only the thresholds change');
  assert.deepEqual(byId.get(old.id)!.definition.steps, STANDARD_FLOW.steps);
  // The migration wrote the standard values of its day (the distance alone). The standard flow now
  // judges the quality-corrected score, whose reference quality keeps it on the distance's scale:
  // its thresholds moved by at most 0.003 (the review threshold 1.149 since the sub-pixel alignment),
  // and flows carrying the older values are left as they are (docs/face-match.md: at 1.068 / 1.146
  // the score's FMR on lfw-dev's half B is 5.8e-5 / 7.8e-4).
  assert.ok(Math.abs(STANDARD_FLOW.checks.face_match_max_distance - 1.068) <= 0.003 + 1e-9 && Math.abs(STANDARD_FLOW.checks.face_review_max_distance - 1.146) <= 0.003 + 1e-9, 'the standard flow\'s values are the migration\'s to within 0.003');
});
