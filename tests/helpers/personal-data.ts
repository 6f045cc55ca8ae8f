import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { findCaseForUpdate, openReviewTask, saveDocumentReading } from '@idv/db';
import { FaceSearchIndex } from '@idv/case-data';
import { FACE_TEMPLATE_LENGTH, FACE_TEMPLATE_VERSION } from '@idv/engine';
import { LocalKeyWrapper } from '@idv/vault';
import type { Sensitivity } from '@idv/domain';
import { startReviewApp, type ReviewTestApp } from './operators.ts';
import { IMAGES, allowStills, fixture, journey, newSession } from './journey.ts';

/** A test person: what the client declares, what the person enters, and what the document says. */
export interface Person {
  declared: { surname: string; given_names: string; birth_date: string };
  entered: { surname: string; given_names: string; birth_date: string; email?: string };
  read: { surname: string; given_names: string; birth_date: string; document_number: string; nationality: string };
}

export interface PersonalDataTestApp extends ReviewTestApp {
  dataDir: string;
}

/** The review app (operators, a real JWKS) with its blob store in a temporary DATA_DIR. */
export async function startPersonalDataApp(env: Record<string, string> = {}): Promise<PersonalDataTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-personal-'));
  const t = await startReviewApp({ DATA_DIR: dataDir, ...env });
  // These suites' journeys send stills (journeyThrough), their subject being personal data, not liveness.
  await allowStills(t);
  const close = t.close;
  return Object.assign(t, {
    dataDir,
    close: async () => {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

export async function openCaseFor(t: ReviewTestApp, person: Person | null, country = 'FR'): Promise<string> {
  const body = { flow_name: 'standard', country, external_ref: `ref-${Math.random().toString(36).slice(2, 10)}`, ...(person ? { declared: person.declared } : {}) };
  const res = await t.request('POST', '/v1/cases', { signed: true, body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** The images a journey sends: a passport, a selfie and the two liveness challenges of the standard flow. */
export function journeyImages(): Record<string, Buffer> {
  return {
    document_front: fixture(IMAGES.passport),
    selfie: fixture(IMAGES.selfie),
    liveness_turn_left: fixture(IMAGES.turnLeft),
    liveness_turn_right: fixture(IMAGES.turnRight),
  };
}

/** The person goes through the hosted journey of the standard flow (stills allowed: startPersonalDataApp): entered data, answers, passport, selfie, challenges, finish. */
export async function journeyThrough(
  t: ReviewTestApp,
  caseId: string,
  person: Person,
  answers = { source_of_funds: 'inheritance', politically_exposed: 'yes' },
  /** A journey link already issued (by default one is issued with the demo key). */
  sessionToken?: string,
): Promise<void> {
  const token = sessionToken ?? (await newSession(t, caseId));
  const steps: [string, string, unknown][] = [
    ['POST', '/consent', { accepted: true }],
    ['POST', '/applicant', person.entered],
    ['POST', '/questionnaire', { answers }],
    ['POST', '/document', { country: 'FR', type: 'passport' }],
  ];
  for (const [method, path, body] of steps) {
    const res = await journey(t, method, path, token, { body });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  }
  for (const [kind, bytes] of Object.entries(journeyImages())) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
  }
  const done = await journey(t, 'POST', '/finish', token);
  assert.equal(done.statusCode, 200, done.body);
}

/**
 * What the checks engine writes once it has read the document: the fields read, sealed under the
 * case's data key; face templates under its biometric key; keyed fingerprints; zone agreement.
 */
export async function recordReading(t: ReviewTestApp, caseId: string, read: Person['read'], round = 1): Promise<void> {
  const now = t.clock.now();
  await t.database.db.transaction(async (tx) => {
    const fields = await t.ctx.vault.sealJson(tx, caseId, 'data', `document_reading:${round}`, read, now);
    const faces = { portrait: faceTemplate(`${read.document_number}:portrait`), selfie: faceTemplate(`${read.document_number}:selfie`) };
    const templates = await t.ctx.vault.sealJson(tx, caseId, 'biometric', `face_templates:${round}`, faces, now);
    const key = t.ctx.keyring.derive('document-fingerprint');
    const { createHmac } = await import('node:crypto');
    const fp = `v1.${key.keyId}.${createHmac('sha256', key.key).update(read.document_number).digest('hex')}`;
    await saveDocumentReading(tx, {
      caseId,
      round,
      ...t.tenant,
      fieldsSealed: fields,
      faceTemplatesSealed: templates,
      fingerprints: [fp],
      zoneAgreement: { surname: 'agree', given_names: 'agree', birth_date: 'agree', document_number: 'agree' },
      readAt: now,
    });
    // The templates in the face search index too, as the checks runner adds them.
    await new FaceSearchIndex(new LocalKeyWrapper(t.ctx.keyring), { version: FACE_TEMPLATE_VERSION, length: FACE_TEMPLATE_LENGTH }).index(tx, t.tenant, caseId, round, faces, now);
  });
}

/** A face template of the engine's length from a seed (not a real face: about unit length, as the descriptor). */
function faceTemplate(seed: string): number[] {
  const out: number[] = [];
  for (let i = 0; out.length < FACE_TEMPLATE_LENGTH; i++) {
    const block = createHash('sha256').update(`${seed}:${i}`).digest();
    for (let j = 0; j < 32 && out.length < FACE_TEMPLATE_LENGTH; j += 4) out.push(Math.round(((block.readUInt32BE(j) / 4294967296 - 0.5) / Math.sqrt(FACE_TEMPLATE_LENGTH / 12)) * 1e6) / 1e6);
  }
  return out;
}

/** The checks send the case to review (the case must be processing: the journey finished). */
export async function sendToReview(t: ReviewTestApp, caseId: string, spec: { sensitivity?: Sensitivity; riskScore?: number } = {}): Promise<string> {
  const now = t.clock.now();
  const { task } = await t.database.db.transaction(async (tx) => {
    await findCaseForUpdate(tx, t.tenant, caseId);
    return openReviewTask(tx, t.tenant, { caseId, riskScore: spec.riskScore ?? 60, sensitivity: spec.sensitivity ?? 'standard', reasons: ['subject_mismatch'] }, now);
  });
  t.clock.advance(1000);
  return task.id;
}

export const PERSONS: Person[] = [
  {
    declared: { surname: 'Müller-Lüdenscheidt', given_names: 'Jörg Friedrich', birth_date: '1971-03-14' },
    entered: { surname: 'Mueller-Luedenscheidt', given_names: 'Joerg Friedrich', birth_date: '1971-03-14', email: 'joerg.ml@example.org' },
    read: { surname: 'MUELLER<LUEDENSCHEIDT', given_names: 'JOERG<FRIEDRICH', birth_date: '1971-03-14', document_number: 'C4J7K2P9X', nationality: 'DE' },
  },
  {
    declared: { surname: 'Ødegård', given_names: 'Sigrún', birth_date: '1988-11-02' },
    entered: { surname: 'Odegard', given_names: 'Sigrun', birth_date: '1988-11-02' },
    read: { surname: 'OEDEGAARD', given_names: 'SIGRUN', birth_date: '1988-11-20', document_number: 'NO8836152', nationality: 'NO' },
  },
  {
    declared: { surname: 'Strauß', given_names: 'Hannelore', birth_date: '1955-07-30' },
    entered: { surname: 'Strauss', given_names: 'Hanne', birth_date: '1955-07-30', email: 'h.strauss@example.net' },
    read: { surname: 'STRAUSS', given_names: 'HANNELORE', birth_date: '1955-07-30', document_number: 'L01X00T47', nationality: 'AT' },
  },
];
