import { ApiFailure } from '../api.ts';
import { h, nextId } from '../dom.ts';
import { compareNames, countryName, flowText, t } from '../i18n.ts';
import type { MessageKey } from '../messages/en.ts';
import { busy, errorLine, handoffOffer, type JourneyView } from '../view.ts';
import type { DocumentType } from '../types.ts';

const primary = (text: string, onclick?: (e: Event) => void, type: 'button' | 'submit' = 'button') =>
  h('button', { type, class: 'primary', onclick }, text);
const secondary = (text: string, onclick: () => void) => h('button', { type: 'button', class: 'secondary', onclick }, text);

export function consentScreen(j: JourneyView): void {
  const error = errorLine();
  const accept = primary(t('consent_accept'), () =>
    busy(accept, error, j, async () => {
      j.state = await j.api.post('/consent', { accepted: true });
      j.next();
    }),
  );
  j.show(
    {
      step: 'consent',
      title: t('consent_title'),
      body: [h('p', null, t('consent_body')), h('p', null, t('consent_body_2')), error],
      actions: [accept, secondary(t('consent_decline'), () => declineScreen(j))],
    },
    () => consentScreen(j),
  );
}

function declineScreen(j: JourneyView): void {
  const error = errorLine();
  const confirm = h('button', { type: 'button', class: 'danger' }, t('decline_confirm'));
  confirm.onclick = () =>
    busy(confirm, error, j, async () => {
      j.state = await j.api.post('/consent', { accepted: false });
      j.end('declined');
    });
  j.show(
    {
      step: 'consent',
      title: t('decline_title'),
      body: [h('p', null, t('decline_body')), error],
      actions: [secondary(t('decline_cancel'), () => consentScreen(j)), confirm],
    },
    () => declineScreen(j),
  );
}

type FieldName = 'given_names' | 'surname' | 'birth_date' | 'email' | 'phone' | 'nationality' | 'address';
const AUTOCOMPLETE: Record<FieldName, string> = {
  given_names: 'given-name',
  surname: 'family-name',
  birth_date: 'bday',
  email: 'email',
  phone: 'tel',
  nationality: 'country',
  address: 'street-address',
};

/** Every assigned country, named in the person's language by the browser, sorted by that name. */
function countryOptions(codes: string[], selected: string): HTMLOptionElement[] {
  return codes
    .map((code) => ({ code, name: countryName(code) }))
    .sort((a, b) => compareNames(a.name, b.name))
    .map(({ code, name }) => h('option', { value: code, selected: code === selected }, name));
}

const ALL_COUNTRIES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'.split(' ');

function field(name: FieldName, required: boolean): { wrap: HTMLElement; input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; error: HTMLElement } {
  const id = nextId(name);
  const errorId = `${id}-error`;
  const common = { id, name, required, autocomplete: AUTOCOMPLETE[name], 'aria-describedby': errorId };
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (name === 'nationality') input = h('select', common, h('option', { value: '' }, t('choose')), ...countryOptions(ALL_COUNTRIES, ''));
  else if (name === 'address') input = h('textarea', { ...common, rows: 3, maxLength: 500 });
  else {
    const type = name === 'birth_date' ? 'date' : name === 'email' ? 'email' : name === 'phone' ? 'tel' : 'text';
    input = h('input', { ...common, type, maxLength: name === 'email' ? 254 : 200, inputMode: name === 'phone' ? 'tel' : undefined });
  }
  const error = h('p', { class: 'field-error', id: errorId });
  const label = h('label', { for: id }, t(`field_${name}` as MessageKey), required ? null : h('span', { class: 'optional' }, ` (${t('optional')})`));
  return { wrap: h('div', { class: 'field' }, label, input, error), input, error };
}

export function applicantScreen(j: JourneyView): void {
  const fields = j.state.applicant.fields.map((f) => ({ name: f.name as FieldName, ...field(f.name as FieldName, f.required) }));
  const error = errorLine();
  const submit = primary(t('continue'), undefined, 'submit');
  const form = h('form', { novalidate: true }, ...fields.map((f) => f.wrap), error, h('div', { class: 'actions' }, submit));
  const mark = (f: (typeof fields)[number], message: string) => {
    f.error.textContent = message;
    f.input.setAttribute('aria-invalid', message ? 'true' : 'false');
  };
  // A corrected field loses its error as the person types.
  for (const f of fields) f.input.addEventListener('input', () => f.error.textContent && mark(f, ''));
  form.onsubmit = (e) => {
    e.preventDefault();
    let first: (typeof fields)[number] | null = null;
    for (const f of fields) {
      const missing = f.input.required && !f.input.value.trim();
      const bad = !missing && f.input instanceof HTMLInputElement && !f.input.checkValidity();
      mark(f, missing ? t('field_required') : bad ? t('field_invalid') : '');
      if ((missing || bad) && !first) first = f;
    }
    if (first) return first.input.focus();
    const body = Object.fromEntries(fields.map((f) => [f.name, f.input.value.trim()]).filter(([, v]) => v));
    void busy(submit, error, j, async () => {
      try {
        j.state = await j.api.post('/applicant', body);
        j.next();
      } catch (err) {
        const target = err instanceof ApiFailure && err.code === 'parameter_invalid' ? fields.find((f) => f.name === err.field) : undefined;
        if (!target) throw err;
        mark(target, t('field_invalid'));
        target.input.focus();
      }
    });
  };
  j.show({ step: 'applicant', title: t('applicant_title'), body: [h('p', null, t('applicant_intro')), form] }, () => applicantScreen(j));
}

export function questionnaireScreen(j: JourneyView): void {
  const error = errorLine();
  const groups = j.state.questionnaire.questions.map((q) => {
    const legendId = nextId('q');
    const err = h('p', { class: 'field-error', id: `${legendId}-error` });
    const radios = q.answers.map((a) => {
      const id = nextId('a');
      const input = h('input', { type: 'radio', id, name: q.id, value: a.id, 'aria-describedby': `${legendId}-error` });
      return { input, row: h('div', { class: 'choice' }, input, h('label', { for: id }, flowText(a.label))) };
    });
    const fieldset = h('fieldset', null, h('legend', { id: legendId }, flowText(q.label)), ...radios.map((r) => r.row), err);
    return { q, radios, fieldset, err };
  });
  const submit = primary(t('continue'), undefined, 'submit');
  const form = h('form', { novalidate: true }, ...groups.map((g) => g.fieldset), error, h('div', { class: 'actions' }, submit));
  form.onsubmit = (e) => {
    e.preventDefault();
    const answers: Record<string, string> = {};
    let first: HTMLInputElement | null = null;
    for (const g of groups) {
      const chosen = g.radios.find((r) => r.input.checked);
      g.err.textContent = chosen ? '' : t('answer_required');
      if (chosen) answers[g.q.id] = chosen.input.value;
      else first ??= g.radios[0].input;
    }
    if (first) return first.focus();
    void busy(submit, error, j, async () => {
      j.state = await j.api.post('/questionnaire', { answers });
      j.next();
    });
  };
  j.show(
    { step: 'questionnaire', title: t('questionnaire_title'), body: [h('p', null, t('questionnaire_intro')), form] },
    () => questionnaireScreen(j),
  );
}

export function documentScreen(j: JourneyView): void {
  const doc = j.state.document;
  const any = doc.accepted.some((d) => d.country === '*');
  const listed = doc.accepted.map((d) => d.country).filter((c) => c !== '*');
  const countries = any ? ALL_COUNTRIES : listed;
  const typesFor = (country: string): DocumentType[] =>
    (doc.accepted.find((d) => d.country === country) ?? doc.accepted.find((d) => d.country === '*'))?.types ?? [];
  const initial = doc.chosen?.country ?? (countries.includes(doc.case_country) ? doc.case_country : countries[0]);
  const countryId = nextId('country');
  const select = h('select', { id: countryId, name: 'country', autocomplete: 'country' }, ...countryOptions(countries, initial));
  const typesBox = h('div', { class: 'types' });
  const typeError = h('p', { class: 'field-error', id: nextId('type-error') });
  const drawTypes = () => {
    const types = typesFor(select.value);
    typesBox.replaceChildren(
      ...(types.length
        ? types.map((type, i) => {
            const id = nextId('type');
            const input = h('input', {
              type: 'radio',
              id,
              name: 'type',
              value: type,
              checked: doc.chosen ? doc.chosen.type === type && doc.chosen.country === select.value : i === 0 && types.length === 1,
              'aria-describedby': typeError.id,
            });
            return h('div', { class: 'choice' }, input, h('label', { for: id }, t(`doc_${type}` as MessageKey)));
          })
        : [h('p', null, t('no_document_for_country'))]),
    );
  };
  select.onchange = drawTypes;
  drawTypes();
  const error = errorLine();
  const submit = primary(t('continue'), undefined, 'submit');
  const form = h(
    'form',
    { novalidate: true },
    h('div', { class: 'field' }, h('label', { for: countryId }, t('document_country')), select),
    h('fieldset', null, h('legend', null, t('document_type')), typesBox, typeError),
    error,
    h('div', { class: 'actions' }, submit),
  );
  form.onsubmit = (e) => {
    e.preventDefault();
    const chosen = typesBox.querySelector<HTMLInputElement>('input:checked');
    typeError.textContent = chosen ? '' : t('answer_required');
    if (!chosen) return typesBox.querySelector<HTMLInputElement>('input')?.focus();
    void busy(submit, error, j, async () => {
      j.state = await j.api.post('/document', { country: select.value, type: chosen.value });
      j.next();
    });
  };
  j.show(
    { step: 'document', title: t('document_title'), body: [h('p', null, t('document_intro')), form, handoffOffer(j, { step: 'document', reason: null })] },
    () => documentScreen(j),
  );
}
