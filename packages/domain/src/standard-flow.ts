import type { FlowDefinition } from './flow.ts';

/**
 * The demo flow created on first start, using every journey step; its questionnaire speaks every
 * language of LOCALES (a test holds it to that). Its face thresholds are distances set from the
 * impostor distribution of faces from the wild: a match at most 1 in 10,000 different-person
 * pairs, the review band up to 1 in 1,000 (docs/face-match.md).
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
          it: 'Qual è la principale provenienza dei fondi che utilizzerai?',
          pt: 'Qual é a principal origem dos fundos que vai utilizar?',
          nl: 'Wat is de belangrijkste herkomst van het geld dat je gaat gebruiken?',
          pl: 'Jakie jest główne źródło środków, z których będziesz korzystać?',
          ro: 'Care este principala sursă a fondurilor pe care le veți folosi?',
          tr: 'Kullanacağınız paranın ana kaynağı nedir?',
          ar: 'ما المصدر الرئيسي للأموال التي ستستخدمها؟',
          zh: '您将使用的资金主要来源是什么？',
        },
        answers: [
          {
            id: 'salary',
            label: { en: 'Salary', fr: 'Salaire', de: 'Gehalt', es: 'Salario', it: 'Stipendio', pt: 'Salário', nl: 'Salaris', pl: 'Wynagrodzenie', ro: 'Salariu', tr: 'Maaş', ar: 'الراتب', zh: '工资' },
            points: 0,
          },
          {
            id: 'savings',
            label: { en: 'Savings', fr: 'Épargne', de: 'Ersparnisse', es: 'Ahorros', it: 'Risparmi', pt: 'Poupanças', nl: 'Spaargeld', pl: 'Oszczędności', ro: 'Economii', tr: 'Birikim', ar: 'المدخرات', zh: '储蓄' },
            points: 0,
          },
          {
            id: 'inheritance',
            label: { en: 'Inheritance', fr: 'Héritage', de: 'Erbschaft', es: 'Herencia', it: 'Eredità', pt: 'Herança', nl: 'Erfenis', pl: 'Spadek', ro: 'Moștenire', tr: 'Miras', ar: 'الميراث', zh: '遗产' },
            points: 10,
          },
          {
            id: 'other',
            label: { en: 'Other', fr: 'Autre', de: 'Andere', es: 'Otro', it: 'Altro', pt: 'Outra', nl: 'Anders', pl: 'Inne', ro: 'Altă sursă', tr: 'Diğer', ar: 'أخرى', zh: '其他' },
            points: 20,
            flag: 'funds_other',
          },
        ],
      },
      {
        id: 'politically_exposed',
        label: {
          en: 'Do you hold, or have you held, a prominent public function?',
          fr: 'Exercez-vous ou avez-vous exercé une fonction publique importante ?',
          de: 'Üben Sie ein wichtiges öffentliches Amt aus oder haben Sie eines ausgeübt?',
          es: '¿Ejerce o ha ejercido una función pública destacada?',
          it: 'Ricopri o hai ricoperto un’importante carica pubblica?',
          pt: 'Exerce ou exerceu um cargo público de relevo?',
          nl: 'Bekleed je een prominente publieke functie, of heb je die bekleed?',
          pl: 'Czy zajmujesz obecnie lub zajmowałeś(-aś) w przeszłości eksponowane stanowisko publiczne?',
          ro: 'Ocupați sau ați ocupat o funcție publică importantă?',
          tr: 'Önemli bir kamu görevinde bulunuyor musunuz veya daha önce bulundunuz mu?',
          ar: 'هل تشغل، أو سبق أن شغلت، منصبًا عامًا بارزًا؟',
          zh: '您目前或过去是否担任重要公职？',
        },
        answers: [
          { id: 'no', label: { en: 'No', fr: 'Non', de: 'Nein', es: 'No', it: 'No', pt: 'Não', nl: 'Nee', pl: 'Nie', ro: 'Nu', tr: 'Hayır', ar: 'لا', zh: '否' }, points: 0 },
          { id: 'yes', label: { en: 'Yes', fr: 'Oui', de: 'Ja', es: 'Sí', it: 'Sì', pt: 'Sim', nl: 'Ja', pl: 'Tak', ro: 'Da', tr: 'Evet', ar: 'نعم', zh: '是' }, points: 50, flag: 'pep' },
        ],
      },
    ],
    review_threshold: 50,
  },
  documents: [{ country: '*', types: ['passport', 'id_card', 'driving_licence', 'residence_permit'] }],
  liveness: { challenges: ['turn_left', 'turn_right'], allow_stills: false },
  checks: { face_match_max_distance: 1.067, face_review_max_distance: 1.149, min_age: 18 },
  decision: { on_attention: 'review', max_resubmissions: 2, review_due_hours: 24 },
  double_validation: false,
  double_validation_on_override: false,
  case_lifetime_hours: 24 * 7,
  retention: { images_days: 30, data_days: 365 },
  capture: { allow_file_upload: true },
};
