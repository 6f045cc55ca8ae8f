import type { FlowDefinition } from './flow.ts';

/**
 * The demo flow created on first start. It uses every journey step so that each later capability
 * (journey, checks, review) can be exercised on it. Face thresholds come from bench:checks
 * (docs/liveness.md, fused face-api + faceres distance): at 0.63, 0.05% of different-person pairs
 * match, 2.2% of same-person pairs do not, and 90% of generated document portraits match another
 * photo of their person; above 0.70 no genuine pair was seen, so only the band between goes to review.
 */
export const STANDARD_FLOW: FlowDefinition = {
  steps: ['consent', 'applicant', 'questionnaire', 'document', 'face'],
  applicant: {
    fields: [
      { name: 'given_names', required: true },
      { name: 'surname', required: true },
      { name: 'birth_date', required: true },
      { name: 'email', required: false },
    ],
  },
  questionnaire: {
    questions: [
      {
        id: 'source_of_funds',
        label: {
          en: 'What is the main source of the funds you will use?',
          fr: 'Quelle est l’origine principale des fonds que vous utiliserez ?',
          de: 'Woher stammen die Mittel, die Sie hauptsächlich verwenden werden?',
          es: '¿Cuál es el origen principal de los fondos que utilizará?',
        },
        answers: [
          { id: 'salary', label: { en: 'Salary', fr: 'Salaire', de: 'Gehalt', es: 'Salario' }, points: 0 },
          { id: 'savings', label: { en: 'Savings', fr: 'Épargne', de: 'Ersparnisse', es: 'Ahorros' }, points: 0 },
          { id: 'inheritance', label: { en: 'Inheritance', fr: 'Héritage', de: 'Erbschaft', es: 'Herencia' }, points: 10 },
          { id: 'other', label: { en: 'Other', fr: 'Autre', de: 'Andere', es: 'Otro' }, points: 20, flag: 'funds_other' },
        ],
      },
      {
        id: 'politically_exposed',
        label: {
          en: 'Do you hold, or have you held, a prominent public function?',
          fr: 'Exercez-vous ou avez-vous exercé une fonction publique importante ?',
          de: 'Üben Sie ein wichtiges öffentliches Amt aus oder haben Sie eines ausgeübt?',
          es: '¿Ejerce o ha ejercido una función pública destacada?',
        },
        answers: [
          { id: 'no', label: { en: 'No', fr: 'Non', de: 'Nein', es: 'No' }, points: 0 },
          { id: 'yes', label: { en: 'Yes', fr: 'Oui', de: 'Ja', es: 'Sí' }, points: 50, flag: 'pep' },
        ],
      },
    ],
    review_threshold: 50,
  },
  documents: [{ country: '*', types: ['passport', 'id_card', 'driving_licence', 'residence_permit'] }],
  liveness: { challenges: ['turn_left', 'turn_right'] },
  checks: { face_match_max_distance: 0.63, face_review_max_distance: 0.7, min_age: 18 },
  decision: { on_attention: 'review', max_resubmissions: 2, review_due_hours: 24 },
  double_validation: false,
  case_lifetime_hours: 24 * 7,
  retention: { images_days: 30, data_days: 365 },
  capture: { allow_file_upload: true },
};
