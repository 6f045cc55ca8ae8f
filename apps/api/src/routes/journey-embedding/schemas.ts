import { Type } from '@sinclair/typebox';
import type { EmbeddingRow } from '@idv/db';
import { MAX_EMBEDDING_ORIGINS } from '@idv/domain';
import { Timestamp } from '../../schemas/common.ts';

export const JourneyEmbeddingSchema = Type.Object(
  {
    object: Type.Literal('journey_embedding'),
    origins: Type.Array(Type.String(), { maxItems: MAX_EMBEDDING_ORIGINS, description: 'Origins allowed to frame the journey; empty means none' }),
    updated_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'JourneyEmbedding' },
);

export function presentEmbedding(row: EmbeddingRow | null) {
  return { object: 'journey_embedding' as const, origins: row?.origins ?? [], updated_at: row?.updatedAt.toISOString() ?? null };
}
