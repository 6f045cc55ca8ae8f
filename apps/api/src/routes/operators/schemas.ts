import { Type } from '@sinclair/typebox';
import type { OperatorRow } from '@idv/db';
import { MAX_CLEARANCE_COUNTRIES, OPERATOR_ROLES, OPERATOR_STATUSES, ROLE_ABILITIES, SENSITIVITY_LEVELS, type RoleAbility } from '@idv/domain';
import { literals } from '../../schemas/case.ts';
import { ListOf, Timestamp } from '../../schemas/common.ts';

const RoleSchema = literals(OPERATOR_ROLES);
const SensitivitySchema = literals(SENSITIVITY_LEVELS);
const CountriesSchema = Type.Array(Type.String({ pattern: '^([A-Z]{2}|\\*)$' }), {
  minItems: 1,
  maxItems: MAX_CLEARANCE_COUNTRIES,
  uniqueItems: true,
  description: 'ISO 3166-1 alpha-2 codes, or ["*"] for every country',
});

export const OperatorSchema = Type.Object(
  {
    id: Type.String({ examples: ['op_01m7ym09t80f4fggxqxy1yr50c'] }),
    object: Type.Literal('operator'),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    role: RoleSchema,
    countries: Type.Array(Type.String()),
    sensitivity: SensitivitySchema,
    status: literals(OPERATOR_STATUSES),
    last_connection_at: Type.Union([Timestamp, Type.Null()]),
    created_at: Timestamp,
    revoked_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Operator', description: 'An operator and their clearance (role, countries, sensitivity)' },
);

export const OperatorListSchema = ListOf(Type.Ref(OperatorSchema), 'OperatorList');

export const OperatorInvitedSchema = Type.Object(
  {
    operator: Type.Ref(OperatorSchema),
    invitation_token: Type.String({ description: 'Returned once, stored only as a hash; presented at the first resolve. The service sends no e-mail' }),
    invitation_expires_at: Timestamp,
  },
  { $id: 'OperatorInvited' },
);

export const OperatorDirectorySchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  },
  { $id: 'OperatorDirectory', description: 'Names of the active operators; no address, no clearance' },
);

const ABILITIES = Object.keys(ROLE_ABILITIES) as RoleAbility[];

export const OperatorResolvedSchema = Type.Object(
  {
    object: Type.Literal('operator_resolution'),
    operator: Type.Object({
      id: Type.String({ description: 'Send it as X-Service-Operator on operator-bound routes' }),
      name: Type.String(),
      role: RoleSchema,
      countries: Type.Array(Type.String()),
      sensitivity: SensitivitySchema,
    }),
    abilities: Type.Array(literals(ABILITIES), { description: 'What the role allows, for the console to show or hide its screens' }),
    invitation_consumed: Type.Boolean({ description: 'True on the first connection, when the invitation attached the subject' }),
  },
  { $id: 'OperatorResolved' },
);

export const NewOperatorSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    role: RoleSchema,
    countries: CountriesSchema,
    sensitivity: SensitivitySchema,
  },
  { additionalProperties: false, $id: 'NewOperator' },
);

export const OperatorClearanceSchema = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    countries: Type.Optional(CountriesSchema),
    sensitivity: Type.Optional(SensitivitySchema),
  },
  { additionalProperties: false, minProperties: 1, $id: 'OperatorClearance' },
);

export const SubjectPresentedSchema = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 255, description: 'The `sub` of the ID token the console verified' }),
    invitation_token: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'At the first connection only' })),
  },
  { additionalProperties: false, $id: 'SubjectPresented' },
);

export const OperatorParams = Type.Object({ target_id: Type.String({ maxLength: 64 }) });

export function presentOperator(row: OperatorRow) {
  return {
    id: row.id,
    object: 'operator' as const,
    name: row.name,
    email: row.email,
    role: row.role,
    countries: row.countries,
    sensitivity: row.sensitivity,
    status: row.status,
    last_connection_at: row.lastConnectionAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}
