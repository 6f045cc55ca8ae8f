import { Type } from '@sinclair/typebox';
import { ERASURE_CATEGORIES, ERASURE_KEEPS } from '@idv/domain';
import { literals } from '../../schemas/case.ts';
import { ListOf, Timestamp } from '../../schemas/common.ts';
import { FieldGapSchema } from '../reviews/schemas.ts';

const Identity = Type.Record(Type.String(), Type.String(), { description: 'Field name to value' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const CaseDataSchema = Type.Object(
  {
    object: Type.Literal('case_data'),
    case_id: Type.String(),
    erased: Type.Boolean({ description: 'True once the personal data was erased: every part below is then null' }),
    declared: Nullable(Identity),
    entered: Nullable(Identity),
    questionnaire: Nullable(
      Type.Object({
        answers: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Question id to answer id' })),
        points: Type.Integer(),
        flags: Type.Array(Type.String()),
      }),
    ),
    document: Nullable(
      Type.Object({
        identity: Nullable(Identity),
        zone_agreement: Type.Record(Type.String(), literals(['agree', 'differ', 'absent'] as const), {
          description: 'Per field: agreement of the printed zone with the machine-readable zone',
        }),
        read_at: Timestamp,
      }),
    ),
    gap: Type.Array(Type.Ref(FieldGapSchema), { description: 'Declared against read, per field, computed by the service' }),
  },
  {
    $id: 'CaseData',
    description:
      'The personal data of a case: what the client declared, what the person entered, the questionnaire answers, the identity read from the document and its agreement with the machine-readable zone. Every read is journaled as a consultation.',
  },
);

export const UnmaskedSchema = Type.Object(
  {
    object: Type.Literal('unmasked'),
    case_id: Type.String(),
    task_id: Nullable(Type.String()),
    scope: literals(['review', 'identity', 'questionnaire', 'applicant_data'] as const),
    field_path: Nullable(Type.String()),
    erased: Type.Boolean(),
    values: Type.Record(Type.String(), Type.String(), {
      description: 'Path to value: declared.*, entered.*, document.*, corrected.subject.*, answers.*',
      examples: [{ 'declared.surname': 'Müller', 'document.surname': 'MUELLER' }],
    }),
    gap: Type.Array(Type.Ref(FieldGapSchema)),
    questionnaire: Nullable(Type.Object({ points: Type.Integer(), flags: Type.Array(Type.String()) })),
  },
  { $id: 'Unmasked', description: 'Revealed personal data; the unmask was journaled before it was read, in the same transaction' },
);

export const UnmaskQuery = Type.Object(
  {
    field_path: Type.Optional(
      Type.String({
        maxLength: 96,
        description: 'Reveal only this path or what lies under it: declared, entered, document, corrected, answers, or one of their fields (document.surname)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AccessLogEntrySchema = Type.Object(
  {
    id: Type.String({ description: 'The journal entry (jrn_…); the cursor' }),
    object: Type.Literal('access_log_entry'),
    case_id: Type.String(),
    kind: literals(['consulted', 'unmasked', 'downloaded'] as const),
    action: Type.String({ examples: ['personal_data.unmasked'] }),
    via: Nullable(Type.String({ description: 'Where: data, record, review, identity, questionnaire, applicant_data, image, piece…' })),
    what: Type.Array(Type.String(), { description: 'Paths revealed (or requested) or pieces downloaded; never values' }),
    actor: Type.Object({
      type: literals(['operator', 'key', 'system'] as const),
      id: Type.String(),
      name: Nullable(Type.String({ description: 'The operator’s name' })),
      role: Nullable(Type.String({ description: 'The operator’s role at the time of the access' })),
      provider_support: Type.Boolean({ description: 'True for the provider’s support staff (through a support grant)' }),
      support_grant_id: Nullable(Type.String()),
    }),
    at: Timestamp,
  },
  { $id: 'AccessLogEntry' },
);
export const AccessLogSchema = ListOf(Type.Ref(AccessLogEntrySchema), 'AccessLog');

export const AccessLogQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 64, description: 'next_cursor of the previous page (newest first)' })),
  },
  { additionalProperties: false },
);

export const ErasureSchema = Type.Object(
  {
    object: Type.Literal('erasure'),
    case_id: Type.String(),
    erased: Type.Object(Object.fromEntries(ERASURE_CATEGORIES.map((c) => [c, Type.Integer({ minimum: 0 })])) as Record<(typeof ERASURE_CATEGORIES)[number], ReturnType<typeof Type.Integer>>, {
      description: 'What this call erased, by category; a replay erases nothing more and says 0 everywhere',
    }),
    case_keys_destroyed: Type.Integer({ minimum: 0, description: 'Case keys destroyed: every copy of what they sealed, backups included, is unreadable' }),
    kept: Type.Array(literals(ERASURE_KEEPS)),
    erased_at: Timestamp,
  },
  { $id: 'Erasure' },
);
