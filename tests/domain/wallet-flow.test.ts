import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STANDARD_FLOW,
  decideCase,
  flowDefinitionProblems,
  missingItems,
  nextStep,
  pieceExpectation,
  walletClaimsFor,
  type FlowDefinition,
  type JourneyProgress,
} from '@idv/domain';

/** The wallet step in a flow's rules: what a definition may say, what a request asks for, when the step is done, and what a failed wallet check decides. */

const flow = (over: Partial<FlowDefinition>): FlowDefinition => ({ ...STANDARD_FLOW, liveness: { challenges: [] }, ...over });
const empty: JourneyProgress = { consented: true, applicantDone: true, questionnaireDone: true, document: null, pieces: [], resubmission: null, wallet: null };

describe('the flow definition', () => {
  test('old flows stay valid; the wallet step alone, with the face step, or with the document as its fallback', () => {
    assert.deepEqual(flowDefinitionProblems(STANDARD_FLOW), []);
    assert.deepEqual(flowDefinitionProblems(flow({ steps: ['consent', 'wallet'] })), []);
    assert.deepEqual(flowDefinitionProblems(flow({ steps: ['consent', 'wallet', 'face'], wallet: { formats: ['dc+sd-jwt'], document_fallback: false } })), []);
    assert.deepEqual(flowDefinitionProblems(flow({ steps: ['consent', 'wallet', 'document', 'face'], wallet: { formats: ['mso_mdoc', 'dc+sd-jwt'], document_fallback: true } })), []);
  });

  test('refused: both steps without the fallback, the fallback without the document, the document before the wallet, the setting without the step, an unknown format', () => {
    const paths = (def: unknown) => flowDefinitionProblems(def).map((p) => p.path);
    assert.deepEqual(paths(flow({ steps: ['wallet', 'document'] })), ['/wallet/document_fallback']);
    assert.deepEqual(paths(flow({ steps: ['wallet'], wallet: { formats: ['dc+sd-jwt'], document_fallback: true } })), ['/steps']);
    assert.deepEqual(paths(flow({ steps: ['document', 'wallet'], wallet: { formats: ['dc+sd-jwt'], document_fallback: true } })), ['/steps/0']);
    assert.deepEqual(paths(flow({ steps: ['document'], wallet: { formats: ['dc+sd-jwt'], document_fallback: false } })), ['/wallet']);
    assert.ok(paths({ ...STANDARD_FLOW, steps: ['wallet'], wallet: { formats: ['jwt_vc'], document_fallback: false } }).length > 0);
  });
});

describe('what a request asks for', () => {
  test('the identity, the nationality the applicant step compares, the portrait for a face match', () => {
    assert.deepEqual(walletClaimsFor(flow({ steps: ['wallet'], checks: { ...STANDARD_FLOW.checks, min_age: 0 } })), ['given_names', 'surname', 'birth_date', 'issuing_country', 'document_number', 'expiry_date']);
    const withFace = walletClaimsFor(flow({ steps: ['applicant', 'wallet', 'face'], applicant: { fields: [{ name: 'nationality', required: true }] } }));
    assert.deepEqual(withFace, ['given_names', 'surname', 'birth_date', 'nationality', 'issuing_country', 'document_number', 'expiry_date', 'portrait']);
  });

  test('age over 18 alone when that is all the flow needs', () => {
    assert.deepEqual(walletClaimsFor(flow({ steps: ['consent', 'wallet'], checks: { ...STANDARD_FLOW.checks, min_age: 18 } })), ['age_over_18']);
    assert.ok(walletClaimsFor(flow({ steps: ['consent', 'wallet'], checks: { ...STANDARD_FLOW.checks, min_age: 21 } })).includes('birth_date'));
  });
});

describe('the journey', () => {
  const fallback = flow({ steps: ['consent', 'wallet', 'document', 'face'], wallet: { formats: ['dc+sd-jwt'], document_fallback: true } });

  test('the wallet first; an accepted presentation ends the document step too', () => {
    assert.equal(nextStep(fallback, empty), 'wallet');
    assert.deepEqual(missingItems(fallback, empty), ['wallet', 'selfie']);
    const presented = { ...empty, wallet: 'accepted' as const };
    assert.equal(nextStep(fallback, presented), 'face');
    assert.deepEqual(missingItems(fallback, presented), ['selfie']);
    const refusal = pieceExpectation(fallback, { ...presented, document: { country: 'FR', type: 'passport' } }, 'document_front');
    assert.equal(refusal.ok, false);
  });

  test('choosing the document ends the wallet step; refusals up to the limit end it too', () => {
    const chosen = { ...empty, document: { country: 'FR', type: 'passport' as const } };
    assert.equal(nextStep(fallback, chosen), 'document');
    assert.deepEqual(missingItems(fallback, chosen), ['document_front', 'selfie']);
    const walletOnly = flow({ steps: ['consent', 'wallet'] });
    assert.deepEqual(missingItems(walletOnly, { ...empty, wallet: 'refused' }), []);
    assert.equal(nextStep(walletOnly, { ...empty, wallet: 'refused' }), 'check');
  });

  test('the wallet portrait is never uploaded', () => {
    assert.equal(pieceExpectation(fallback, empty, 'wallet_portrait').ok, false);
  });
});

describe('the decision', () => {
  test('a failed wallet check rejects as a failed document check, named by its reason', () => {
    const decide = (reason: 'wallet_credential_expired' | 'wallet_issuer_untrusted' | 'wallet_device_binding_invalid') =>
      decideCase({ reports: [{ type: 'wallet', status: 'failed', reasons: [reason], measures: {} }], flow: STANDARD_FLOW, resubmissions: 0, now: new Date() });
    assert.deepEqual([decide('wallet_credential_expired').outcome, (decide('wallet_credential_expired') as { reasonCode: string }).reasonCode], ['rejected', 'document_expired']);
    assert.equal((decide('wallet_issuer_untrusted') as { reasonCode: string }).reasonCode, 'document_not_accepted');
    assert.equal((decide('wallet_device_binding_invalid') as { reasonCode: string }).reasonCode, 'document_tampered');
  });
});
