import { Type } from '@sinclair/typebox';
import type { ApiKeyRow } from '@idv/db';
import { ListOf, Timestamp } from '../../schemas/common.ts';

export const PermissionSchema = Type.Union([Type.Literal('personal_data'), Type.Literal('decisions')]);

const keyFields = {
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.Union([Type.String(), Type.Null()]),
  environment: Type.Union([Type.Literal('sandbox'), Type.Literal('prod')]),
  kind: Type.Union([Type.Literal('integration'), Type.Literal('console')]),
  permissions: Type.Array(PermissionSchema),
  secret_prefix: Type.String({ description: 'First characters of the secret, to tell keys apart' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
};

export const ApiKeySchema = Type.Object(keyFields, { $id: 'ApiKey' });
export const ApiKeyCreatedSchema = Type.Object(
  {
    ...keyFields,
    secret: Type.String({ description: 'Bearer secret; returned once, stored only as a hash' }),
    signing_secret: Type.String({ description: 'Secret for X-Service-Signature; returned once' }),
  },
  { $id: 'ApiKeyCreated' },
);
export const ApiKeyListSchema = ListOf(Type.Ref(ApiKeySchema), 'ApiKeyList');

export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    object: 'api_key' as const,
    name: row.name,
    environment: row.environment,
    kind: row.kind,
    permissions: row.permissions,
    secret_prefix: row.secretPrefix,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}
