import { Type } from '@sinclair/typebox';
import { CASE_STATES, CASE_STATUSES } from '@idv/domain';
import { ListOf, Timestamp } from './common.ts';

/** A string enum with its literal type kept (Type.Union of mapped literals widens to string). */
export const literals = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const CaseStatusSchema = literals(CASE_STATUSES);
export const CaseStateSchema = literals(CASE_STATES);

export const CheckSchema = Type.Object(
  {
    type: Type.String({ description: 'Which check, e.g. document_quality, mrz, face_match' }),
    status: literals(['ok', 'attention', 'failed'] as const),
    reasons: Type.Array(Type.String(), { description: 'Codes from the closed list of reasons' }),
    measures: Type.Record(Type.String(), Type.Number()),
  },
  { $id: 'Check' },
);

export const PieceSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'document_front, document_back, selfie or a liveness challenge' }),
    available: Type.Boolean({ description: 'False once the image has been erased or has passed its retention' }),
    received_at: Timestamp,
  },
  { $id: 'Piece' },
);

export const DecisionSchema = Type.Object(
  {
    outcome: literals(['approved', 'rejected'] as const),
    reason_code: Type.Union([Type.String(), Type.Null()]),
    decided_at: Timestamp,
  },
  { $id: 'Decision' },
);

export const ResubmissionSchema = Type.Object(
  { steps: Type.Array(literals(['document', 'face'] as const)) },
  { $id: 'Resubmission' },
);

const resultFields = {
  state: CaseStateSchema,
  decision: Type.Union([Type.Ref(DecisionSchema), Type.Null()]),
  resubmission: Type.Union([Type.Ref(ResubmissionSchema), Type.Null()]),
  checks: Type.Array(Type.Ref(CheckSchema)),
  duplicates: Type.Array(Type.String({ description: 'Id of another case carrying the same document or face' })),
  pieces: Type.Array(Type.Ref(PieceSchema)),
};

export const CaseSchema = Type.Object(
  {
    id: Type.String({ examples: ['case_01m7ym09t80f4fggxqxy1yr50c'] }),
    object: Type.Literal('case'),
    status: CaseStatusSchema,
    flow_name: Type.String(),
    flow_version: Type.Integer(),
    country: Type.String(),
    external_ref: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    expires_at: Timestamp,
    ...resultFields,
  },
  { $id: 'Case' },
);

export const CaseCreatedSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('case'),
    status: CaseStatusSchema,
    state: CaseStateSchema,
    flow_name: Type.String(),
    flow_version: Type.Integer(),
    country: Type.String(),
    external_ref: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    expires_at: Timestamp,
  },
  { $id: 'CaseCreated' },
);

export const CaseResultsSchema = Type.Object(
  { object: Type.Literal('case_results'), case_id: Type.String(), ...resultFields },
  { $id: 'CaseResults', description: 'Results without personal data' },
);

export const CaseListSchema = ListOf(Type.Ref(CaseSchema), 'CaseList');

export const NewCaseSchema = Type.Object(
  {
    flow_name: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$', description: 'Name of an activated flow, lower case' }),
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
    external_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    declared: Type.Optional(
      Type.Object(
        {
          surname: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          given_names: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          birth_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
        },
        { additionalProperties: false, description: 'Compared to the document, never trusted' },
      ),
    ),
  },
  { additionalProperties: false },
);

/** What selects cases, for the list and its CSV export alike. */
const caseFilterFields = {
  external_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Prefix of the external reference or of the case id' })),
  status: Type.Optional(CaseStatusSchema),
  state: Type.Optional({ ...CaseStateSchema, description: 'The case’s own position, finer than its status (resubmission_requested, approved…)' }),
  flow_name: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' })),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
};

export const CaseListQuerySchema = Type.Object(
  {
    ...caseFilterFields,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const CaseExportQuerySchema = Type.Object(caseFilterFields, { additionalProperties: false });
