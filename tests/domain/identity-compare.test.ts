import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { datesAgree, hasMismatch, identityGap, identityPaths, mrzName, nameKeys, namesAgree, normaliseDate } from '@idv/domain';

describe('name normalisation', () => {
  const agree: [string, string][] = [
    ['Müller', 'MÜLLER'],
    ['Müller', 'MUELLER'],
    ['Müller', 'MULLER'],
    ['Mueller', 'MÜLLER'],
    ['Strauß', 'STRAUSS'],
    ['Øberg', 'OEBERG'],
    ['Ångström', 'AANGSTROEM'],
    ['Ångström', 'ANGSTROM'],
    ['Jean-Pierre', 'JEAN<PIERRE'],
    ['jean pierre', 'Jean-Pierre'],
    ['Anne  Marie', 'ANNE<<MARIE'],
    ["O'Brien", 'OBRIEN'],
    ['O’Brien', 'O BRIEN'],
    ['José', 'JOSE'],
    ['Françoise', 'FRANCOISE'],
    ['Łukasiewicz', 'LUKASIEWICZ'],
    ['Þórsdóttir', 'THORSDOTTIR'],
    ['Ærø', 'AEROE'],
    ['Иванов', 'IVANOV'],
    ['Щукин', 'SHCHUKIN'],
    ['Παπαδόπουλος', 'PAPADOPOULOS'],
    ['Ευάγγελος', 'EVANGELOS'],
    ['Ğülşen', 'GULSEN'],
  ];
  for (const [a, b] of agree) {
    test(`${a} agrees with ${b}`, () => {
      assert.equal(namesAgree(a, b), true, `${nameKeys(a)} vs ${nameKeys(b)}`);
      assert.equal(namesAgree(b, a), true, 'symmetric');
    });
  }

  const differ: [string, string][] = [
    ['Müller', 'MILLER'],
    ['Muller', 'MUELLER'], // without the diacritic nothing says the U was a Ü
    ['Martin', 'MARTINE'],
    ['Dupont', 'DUPOND'],
    ['', ''],
    ['---', '<<<'],
  ];
  for (const [a, b] of differ) {
    test(`${JSON.stringify(a)} does not agree with ${JSON.stringify(b)}`, () => {
      assert.equal(namesAgree(a, b), false);
    });
  }

  test('keys are upper-case letters only; the MRZ form uses < between words', () => {
    assert.deepEqual(nameKeys('Müller-Lüdenscheidt'), ['MUELLERLUEDENSCHEIDT', 'MULLERLUDENSCHEIDT']);
    assert.deepEqual(nameKeys('  '), []);
    assert.equal(mrzName('Jean-Pierre Müller'), 'JEAN<PIERRE<MUELLER');
    assert.equal(mrzName("D'Artagnan"), 'DARTAGNAN');
  });
});

describe('dates', () => {
  test('YYYY-MM-DD and YYYYMMDD are the same date; anything else is not a date', () => {
    assert.equal(normaliseDate('19850412'), '1985-04-12');
    assert.equal(normaliseDate(' 1985-04-12 '), '1985-04-12');
    assert.equal(normaliseDate('12/04/1985'), null);
    assert.equal(datesAgree('1985-04-12', '19850412'), true);
    assert.equal(datesAgree('1985-04-12', '1985-04-21'), false);
    assert.equal(datesAgree('garbage', 'garbage'), false);
  });
});

describe('the gap between two identities', () => {
  test('match, mismatch and missing per field, by path, never carrying a value', () => {
    const gaps = identityGap(
      { name: 'declared', values: { surname: 'Müller', given_names: 'Anna-Lena', birth_date: '1990-02-01' } },
      { name: 'document', values: { surname: 'MUELLER', given_names: 'ANNA LENA MARIA', nationality: 'DE', document_number: 'C01X00T47' } },
    );
    assert.deepEqual(gaps, [
      { field: 'surname', paths: ['declared.surname', 'document.surname'], status: 'match', missing: [] },
      { field: 'given_names', paths: ['declared.given_names', 'document.given_names'], status: 'mismatch', missing: [] },
      { field: 'birth_date', paths: ['declared.birth_date', 'document.birth_date'], status: 'missing', missing: ['document.birth_date'] },
      { field: 'nationality', paths: ['declared.nationality', 'document.nationality'], status: 'missing', missing: ['declared.nationality'] },
    ]);
    assert.equal(hasMismatch(gaps), true);
    assert.equal(JSON.stringify(gaps).includes('MUELLER'), false);
  });

  test('accent and case differences alone are no mismatch; absent identities give no gap', () => {
    const gaps = identityGap(
      { name: 'declared', values: { surname: 'Gómez', given_names: 'josé luis', birth_date: '1975-12-31' } },
      { name: 'document', values: { surname: 'GOMEZ', given_names: 'JOSE<LUIS', birth_date: '1975-12-31' } },
    );
    assert.ok(gaps.every((g) => g.status === 'match'));
    assert.equal(hasMismatch(gaps), false);
    assert.deepEqual(identityGap({ name: 'declared', values: null }, { name: 'document', values: undefined }), []);
    assert.deepEqual(identityGap({ name: 'declared', values: { surname: '  ' } }, { name: 'document', values: {} }), []);
  });

  test('paths of an identity: present fields only, sorted', () => {
    assert.deepEqual(identityPaths('declared', { surname: 'X', given_names: '', birth_date: '2000-01-01' }), ['declared.birth_date', 'declared.surname']);
    assert.deepEqual(identityPaths('entered', null), []);
  });
});
