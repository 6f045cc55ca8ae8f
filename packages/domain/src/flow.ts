import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { LOCALES, type Locale } from './locales.ts';
import { ATTACK_ACTIONS, ATTACK_REASONS, PRESENTATION_ATTACKS } from './presentation-attacks.ts';

/**
 * A flow is a named, versioned definition of what a case asks of the person and how it is
 * decided. Only an activated version accepts new cases; a case keeps the version it was opened
 * with, so editing a flow never changes the rules of cases already running.
 */
export const JOURNEY_STEPS = ['consent', 'applicant', 'questionnaire', 'wallet', 'document', 'face'] as const;
/** Credential formats a wallet presentation may use (docs/wallet.md): SD-JWT VC (PID), ISO mdoc (PID, mDL). */
export const WALLET_FORMATS = ['dc+sd-jwt', 'mso_mdoc'] as const;
export type WalletFormat = (typeof WALLET_FORMATS)[number];
export const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit', 'visa'] as const;
export const APPLICANT_FIELDS = ['given_names', 'surname', 'birth_date', 'email', 'phone', 'nationality', 'address'] as const;
export const LIVENESS_CHALLENGES = ['turn_left', 'turn_right', 'look_up', 'look_down'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

const Text = Type.String({ minLength: 1, maxLength: 500 });
/** A text of the flow's own (its questionnaire) in the journey's languages: English required, the others optional. */
const Localised = Type.Object(
  Object.fromEntries(LOCALES.map((l) => [l, l === 'en' ? Text : Type.Optional(Text)])) as { en: TString } & { [L in Exclude<Locale, 'en'>]: TOptional<TString> },
  { additionalProperties: false, description: `Text per language (${LOCALES.join(', ')}); English is required and is the fallback` },
);
export type LocalisedText = Static<typeof Localised>;

const attackAction = (description: string) => Type.Union(ATTACK_ACTIONS.map((a) => Type.Literal(a)), { description });
/** Per presentation-attack reason, what the policy answers; every key optional (absent: its default). */
const PresentationAttacks = Type.Object(
  Object.fromEntries(
    ATTACK_REASONS.map((r) => [r, Type.Optional(attackAction(`Default: ${PRESENTATION_ATTACKS[r].default}`))]),
  ) as Record<(typeof ATTACK_REASONS)[number], TOptional<ReturnType<typeof attackAction>>>,
  {
    additionalProperties: false,
    description:
      'What a suspected presentation attack does to the case: reject, retake (the step again, within max_resubmissions, then review) or review. Never approved. Absent reasons take their defaults (docs/flows.md#presentation-attacks)',
  },
);

export const FlowDefinitionSchema = Type.Object(
  {
    steps: Type.Array(Type.Union(JOURNEY_STEPS.map((s) => Type.Literal(s))), { minItems: 1, uniqueItems: true }),
    applicant: Type.Object(
      {
        fields: Type.Array(
          Type.Object(
            { name: Type.Union(APPLICANT_FIELDS.map((f) => Type.Literal(f))), required: Type.Boolean() },
            { additionalProperties: false },
          ),
          { maxItems: APPLICANT_FIELDS.length },
        ),
      },
      { additionalProperties: false },
    ),
    questionnaire: Type.Object(
      {
        questions: Type.Array(
          Type.Object(
            {
              id: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }),
              label: Localised,
              answers: Type.Array(
                Type.Object(
                  {
                    id: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }),
                    label: Localised,
                    points: Type.Integer({ minimum: 0, maximum: 100 }),
                    flag: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' })),
                  },
                  { additionalProperties: false },
                ),
                { minItems: 2, maxItems: 20 },
              ),
            },
            { additionalProperties: false },
          ),
          { maxItems: 50 },
        ),
        review_threshold: Type.Integer({ minimum: 0, description: 'Total points at or above which the case goes to review' }),
      },
      { additionalProperties: false },
    ),
    documents: Type.Array(
      Type.Object(
        {
          country: Type.String({ pattern: '^([A-Z]{2}|\\*)$', description: 'ISO 3166-1 alpha-2, or * for any country' }),
          types: Type.Array(Type.Union(DOCUMENT_TYPES.map((t) => Type.Literal(t))), { minItems: 1, uniqueItems: true }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 300 },
    ),
    liveness: Type.Object(
      {
        challenges: Type.Array(Type.Union(LIVENESS_CHALLENGES.map((c) => Type.Literal(c))), { maxItems: 4, uniqueItems: true }),
        allow_stills: Type.Optional(
          Type.Boolean({
            description:
              'Accept one still per movement (PUT /pieces/liveness_<movement>) instead of the live sequence, for a capture client that cannot film; the liveness check then carries challenge_stills (absent: false, the live sequence only; docs/flows.md#the-live-sequence-or-stills)',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    checks: Type.Object(
      {
        face_match_max_distance: Type.Number({ minimum: 0, maximum: 2 }),
        face_review_max_distance: Type.Number({ minimum: 0, maximum: 2 }),
        min_age: Type.Integer({ minimum: 0, maximum: 120 }),
      },
      { additionalProperties: false },
    ),
    decision: Type.Object(
      {
        on_attention: Type.Union([Type.Literal('review'), Type.Literal('reject')]),
        max_resubmissions: Type.Integer({ minimum: 0, maximum: 5 }),
        review_due_hours: Type.Integer({ minimum: 1, maximum: 24 * 30 }),
        presentation_attacks: Type.Optional(PresentationAttacks),
      },
      { additionalProperties: false },
    ),
    double_validation: Type.Boolean(),
    double_validation_on_override: Type.Optional(
      Type.Boolean({
        description:
          'An operator approving against a failed or attention check needs a second operator to agree, even when double_validation is false (absent: false)',
      }),
    ),
    case_lifetime_hours: Type.Integer({ minimum: 1, maximum: 24 * 90 }),
    retention: Type.Object(
      {
        images_days: Type.Integer({ minimum: 1, maximum: 3650 }),
        data_days: Type.Integer({ minimum: 1, maximum: 3650 }),
      },
      { additionalProperties: false },
    ),
    capture: Type.Object({ allow_file_upload: Type.Boolean() }, { additionalProperties: false }),
    wallet: Type.Optional(
      Type.Object(
        {
          formats: Type.Array(Type.Union(WALLET_FORMATS.map((f) => Type.Literal(f))), {
            minItems: 1,
            uniqueItems: true,
            description: 'Credential formats accepted: dc+sd-jwt (PID as SD-JWT VC), mso_mdoc (PID or mobile driving licence as ISO mdoc)',
          }),
          document_fallback: Type.Boolean({
            description: 'The person may choose the document instead of the wallet (the flow then lists the document step after the wallet step)',
          }),
        },
        {
          additionalProperties: false,
          description: 'The wallet step (docs/flows.md#the-wallet): absent, a flow with the wallet step accepts both formats without the document fallback',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FlowDefinition = Static<typeof FlowDefinitionSchema>;

export const FLOW_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';

/** One problem of a definition: a JSON pointer into it (`/checks/face_match_max_distance`) and what is wrong there. */
export interface FlowProblem {
  path: string;
  message: string;
}

/** Schema errors plus the rules a schema cannot say, each at the path it concerns; empty when usable. */
export function flowDefinitionProblems(def: unknown): FlowProblem[] {
  if (!Value.Check(FlowDefinitionSchema, def)) {
    return [...Value.Errors(FlowDefinitionSchema, def)].slice(0, 20).map((e) => ({ path: e.path || '/', message: e.message }));
  }
  const problems: FlowProblem[] = [];
  const at = (path: string, message: string) => problems.push({ path, message });
  const steps = def.steps;
  const needs = (step: (typeof JOURNEY_STEPS)[number]) => steps.includes(step);
  if (needs('questionnaire') && def.questionnaire.questions.length === 0) at('/questionnaire/questions', 'the questionnaire step needs questions');
  if (needs('applicant') && def.applicant.fields.length === 0) at('/applicant/fields', 'the applicant step needs fields');
  if (needs('face') && !needs('document') && !needs('wallet')) at('/steps', 'the face step compares with the document or the wallet portrait and needs the document or the wallet step');
  if (def.wallet && !needs('wallet')) at('/wallet', 'the wallet setting needs the wallet step');
  const fallback = walletSettings(def).document_fallback;
  if (needs('wallet') && needs('document') && !fallback) at('/wallet/document_fallback', 'with both the wallet and the document steps, set document_fallback: the person presents one of them');
  if (needs('wallet') && fallback && !needs('document')) at('/steps', 'document_fallback needs the document step (after the wallet step)');
  if (needs('wallet') && needs('document') && steps.indexOf('document') < steps.indexOf('wallet')) at(`/steps/${steps.indexOf('document')}`, 'the document step, a fallback, comes after the wallet step');
  if (steps.indexOf('consent') > 0) at(`/steps/${steps.indexOf('consent')}`, 'consent must come first');
  if (def.checks.face_match_max_distance > def.checks.face_review_max_distance) {
    at('/checks/face_match_max_distance', 'face_match_max_distance must not exceed face_review_max_distance');
  }
  const countries = def.documents.map((d) => d.country);
  const repeatedCountry = countries.findIndex((c, i) => countries.indexOf(c) !== i);
  if (repeatedCountry >= 0) at(`/documents/${repeatedCountry}/country`, 'each country may appear once');
  const fields = def.applicant.fields.map((f) => f.name);
  const repeatedField = fields.findIndex((f, i) => fields.indexOf(f) !== i);
  if (repeatedField >= 0) at(`/applicant/fields/${repeatedField}/name`, 'each field may appear once');
  def.questionnaire.questions.forEach((q, i) => {
    const ids = q.answers.map((a) => a.id);
    const repeated = ids.findIndex((id, j) => ids.indexOf(id) !== j);
    if (repeated >= 0) at(`/questionnaire/questions/${i}/answers/${repeated}/id`, 'answer ids must be unique within a question');
  });
  return problems;
}

/** The same problems as text lines (`path: message`), as the admin command line prints them. */
export function validateFlowDefinition(def: unknown): string[] {
  return flowDefinitionProblems(def).map((p) => `${p.path}: ${p.message}`);
}

/** Document types the flow accepts for an issuing country (exact country first, then the `*` entry). */
export function acceptedDocumentTypes(def: FlowDefinition, country: string): readonly DocumentType[] {
  const exact = def.documents.find((d) => d.country === country);
  return (exact ?? def.documents.find((d) => d.country === '*'))?.types ?? [];
}

export function acceptsCountry(def: FlowDefinition, country: string): boolean {
  return acceptedDocumentTypes(def, country).length > 0;
}

/**
 * Whether the face step accepts one still per movement (the older capture, no challenge drawn by
 * the service) instead of the live sequence. Absent means no: a flow written before the setting
 * refuses stills like a new one (docs/flows.md#the-live-sequence-or-stills).
 */
export function stillsAllowed(def: FlowDefinition): boolean {
  return def.liveness.allow_stills === true;
}

/** The flow's wallet setting, with its defaults where the flow has the wallet step but no setting. */
export function walletSettings(def: FlowDefinition): { formats: WalletFormat[]; document_fallback: boolean } {
  return def.wallet ? { formats: [...def.wallet.formats], document_fallback: def.wallet.document_fallback } : { formats: [...WALLET_FORMATS], document_fallback: false };
}
