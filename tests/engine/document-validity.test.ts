import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { ageInYears, checkValidity, typesForDocumentCode, type ValidityInput } from '../../packages/engine/src/document/validity.ts';
import { issuingAlpha2 } from '../../packages/engine/src/document/issuing-country.ts';

const today = new Date('2026-06-15T10:00:00Z');
const passport = {
  document_code: 'P',
  issuing_country: 'FRA',
  document_number: '12AB34567',
  surname: 'MARTIN',
  given_names: 'CLAIRE',
  nationality: 'FRA',
  birth_date: '1990-03-01',
  sex: 'F' as const,
  expiry_date: '2030-01-01',
};
const input = (over: Partial<ValidityInput> = {}, fields: Record<string, unknown> = {}): ValidityInput => ({
  fields: { ...passport, ...fields },
  chosen: { country: 'FR', type: 'passport' },
  flow: STANDARD_FLOW,
  today,
  sandbox: false,
  ...over,
});
const frenchPassportsOnly: FlowDefinition = { ...STANDARD_FLOW, documents: [{ country: 'FR', types: ['passport'] }] };

describe('document validity', () => {
  test('a valid passport of an accepted country is ok', () => {
    const r = checkValidity(input());
    assert.deepEqual([r.type, r.status, r.reasons], ['document_validity', 'ok', []]);
    assert.equal(r.measures.minimum_age, 18);
  });

  test('expiry: the last day is still valid, the day after is expired', () => {
    assert.equal(checkValidity(input({}, { expiry_date: '2026-06-15' })).status, 'ok');
    const r = checkValidity(input({}, { expiry_date: '2026-06-14' }));
    assert.deepEqual([r.status, r.reasons], ['failed', ['document_expired']]);
    assert.deepEqual(checkValidity(input({}, { expiry_date: '2026-02-30' })).reasons, ['document_expired']);
  });

  test('birth date in the future or over 130 years ago is implausible', () => {
    assert.deepEqual(checkValidity(input({}, { birth_date: '2027-01-01' })).reasons, ['birth_date_implausible']);
    assert.deepEqual(checkValidity(input({}, { birth_date: '1895-01-01' })).reasons, ['birth_date_implausible']);
    assert.deepEqual(checkValidity(input({}, { birth_date: '1990-13-01' })).reasons, ['birth_date_implausible']);
    assert.equal(checkValidity(input({}, { birth_date: '1900-01-01' })).status, 'ok');
  });

  test('minimum age counts the birthday itself', () => {
    assert.equal(ageInYears('2008-06-15', '2026-06-15'), 18);
    assert.equal(ageInYears('2008-06-16', '2026-06-15'), 17);
    assert.equal(checkValidity(input({}, { birth_date: '2008-06-15' })).status, 'ok');
    assert.deepEqual(checkValidity(input({}, { birth_date: '2008-06-16' })).reasons, ['under_minimum_age']);
    const noMinimum = { ...STANDARD_FLOW, checks: { ...STANDARD_FLOW.checks, min_age: 0 } };
    assert.equal(checkValidity(input({ flow: noMinimum }, { birth_date: '2020-01-01' })).status, 'ok');
  });

  test('issuing country and type must be accepted by the flow', () => {
    assert.equal(checkValidity(input({ flow: frenchPassportsOnly })).status, 'ok');
    const german = checkValidity(input({ flow: frenchPassportsOnly, chosen: { country: 'DE', type: 'passport' } }, { issuing_country: 'D<<' }));
    assert.deepEqual(german.reasons, ['document_not_accepted']);
    assert.equal(german.measures.issuer_is_chosen_country, 1);
    // The issuer on the document decides, not the country the person chose.
    const chosenFrance = checkValidity(input({ flow: frenchPassportsOnly }, { issuing_country: 'DEU' }));
    assert.deepEqual(chosenFrance.reasons, ['document_not_accepted']);
    assert.equal(chosenFrance.measures.issuer_is_chosen_country, 0);
    const visa = checkValidity(input({ chosen: { country: 'FR', type: 'visa' } }, { document_code: 'V' }));
    assert.deepEqual(visa.reasons, ['document_not_accepted']); // the standard flow takes no visas
  });

  test('specimen issuer UTO is accepted only in the sandbox', () => {
    assert.deepEqual(checkValidity(input({}, { issuing_country: 'UTO' })).reasons, ['document_not_accepted']);
    assert.equal(checkValidity(input({ sandbox: true }, { issuing_country: 'UTO' })).status, 'ok');
    assert.deepEqual(checkValidity(input({ sandbox: true, flow: frenchPassportsOnly, chosen: { country: 'DE', type: 'passport' } }, { issuing_country: 'UTO' })).reasons, ['document_not_accepted']);
  });

  test('the document code must be consistent with the chosen type', () => {
    const idCard = checkValidity(input({ chosen: { country: 'FR', type: 'id_card' } }, { document_code: 'ID' }));
    assert.equal(idCard.status, 'ok');
    assert.equal(checkValidity(input({ chosen: { country: 'FR', type: 'residence_permit' } }, { document_code: 'AC' })).status, 'ok');
    const chosePassport = checkValidity(input({}, { document_code: 'I<' }));
    assert.deepEqual([chosePassport.status, chosePassport.reasons], ['attention', ['document_type_differs']]);
    // A passport read where the flow accepts only passports, but an ID card was chosen: type differs, still accepted.
    const r = checkValidity(input({ flow: frenchPassportsOnly, chosen: { country: 'FR', type: 'id_card' } }));
    assert.deepEqual(r.reasons, ['document_type_differs']);
  });

  test('code tables', () => {
    assert.deepEqual(typesForDocumentCode('P<'), ['passport']);
    assert.deepEqual(typesForDocumentCode('V'), ['visa']);
    assert.deepEqual(typesForDocumentCode('C'), ['id_card', 'residence_permit']);
    assert.deepEqual(typesForDocumentCode('DL'), ['driving_licence']);
    assert.equal(typesForDocumentCode('X'), null);
    assert.equal(issuingAlpha2('D<<'), 'DE');
    assert.equal(issuingAlpha2('GBD'), 'GB');
    assert.equal(issuingAlpha2('RKS'), 'XK');
    assert.equal(issuingAlpha2('US'), 'US');
    assert.equal(issuingAlpha2('XXA'), null);
  });

  test('the report carries no date or age', () => {
    const r = checkValidity(input());
    assert.ok(Object.values(r.measures).every((v) => v === 0 || v === 1 || v === STANDARD_FLOW.checks.min_age));
  });
});
