import type { components } from './openapi-types.ts';

/** Short names for the service's schemas the screens use. */
type S = components['schemas'];
export type ReviewQueueItem = S['ReviewQueueItem'];
export type ReviewTask = S['ReviewTask'];
export type ReviewCase = S['ReviewCase'];
export type ReviewSummary = S['ReviewSummary'];
export type Check = S['Check'];
export type Piece = S['Piece'];
export type Unmasked = S['Unmasked'];
export type SupportGrant = S['SupportGrant'];
export type DecisionRecorded = S['DecisionRecorded'];
export type RevisionRecorded = S['RevisionRecorded'];
export type MaskedSubject = ReviewCase['subject'];
export type JournalEntry = ReviewCase['journal'][number];
export type CorrectionItem = ReviewCase['corrections'][number];
// The client's integration settings (API keys, webhooks, embedding origins).
export type ApiKey = S['ApiKey'];
export type WebhookEndpointListed = S['WebhookEndpointListed'];
export type WebhookDelivery = S['WebhookDelivery'];
export type TrustAnchor = S['TrustAnchor'];
// Oversight screens.
export type Operator = S['Operator'];
export type OperatorInvited = S['OperatorInvited'];
export type ReviewMetrics = S['ReviewMetrics'];
export type DecisionAnalytics = S['DecisionAnalytics'];
export type Usage = S['Usage'];
export type UsageDaily = S['UsageDaily'];
export type Contract = S['Contract'];
export type ApiUsage = S['ApiUsage'];
