import type { TSchema } from '@sinclair/typebox';
import { ApiKeyCreatedSchema, ApiKeyListSchema, ApiKeySchema } from '../routes/api-keys/schemas.ts';
import { ApiUsageSchema } from '../routes/api-usage/get.ts';
import { SessionCreatedSchema, SessionSchema } from '../routes/sessions/schemas.ts';
import {
  CaseCreatedSchema,
  CaseListSchema,
  CaseResultsSchema,
  CaseSchema,
  CheckSchema,
  DecisionSchema,
  PieceSchema,
  ResubmissionSchema,
} from './case.ts';
import { ErrorSchema } from './common.ts';
import {
  WebhookAttemptSchema,
  WebhookDeliveryDetailSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEventBodySchema,
  WebhookEventTypeInfoSchema,
  WebhookEventTypeListSchema,
} from './webhooks.ts';

/** Every schema with an $id, registered once on the app (and so named in the OpenAPI document). */
export const SHARED_SCHEMAS: TSchema[] = [
  ErrorSchema,
  CheckSchema,
  PieceSchema,
  DecisionSchema,
  ResubmissionSchema,
  CaseSchema,
  CaseCreatedSchema,
  CaseResultsSchema,
  CaseListSchema,
  SessionSchema,
  SessionCreatedSchema,
  ApiKeySchema,
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  ApiUsageSchema,
  WebhookEndpointSchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  WebhookDeliveryDetailSchema,
  WebhookDeliveryListSchema,
  WebhookEventBodySchema,
  WebhookEventTypeInfoSchema,
  WebhookEventTypeListSchema,
];
