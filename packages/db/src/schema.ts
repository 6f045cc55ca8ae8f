import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  vector,
} from 'drizzle-orm/pg-core';
import type { CaseState, CaseStatus, FlowDefinition, OverQuotaBehaviour, UsageService } from '@idv/domain';

/** 'sandbox' or 'prod' (the value the webhook object carries). Every tenant row has both columns. */
export type Environment = 'sandbox' | 'prod';
export type Permission = 'personal_data' | 'decisions';
export type KeyKind = 'integration' | 'console';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const clients = pgTable('clients', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    kind: text('kind').$type<KeyKind>().notNull().default('integration'),
    name: text('name'),
    /** sha256 of the secret; the secret itself is never stored. */
    secretHash: text('secret_hash').notNull(),
    /** First characters of the secret, shown in listings so people can tell keys apart. */
    secretPrefix: text('secret_prefix').notNull(),
    /** The request-signing secret, sealed with the master key (the service must recompute HMACs). */
    signingSecretSealed: text('signing_secret_sealed').notNull(),
    permissions: jsonb('permissions').$type<Permission[]>().notNull(),
    createdBy: text('created_by'),
    createdAt: ts('created_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_secret_hash').on(t.secretHash), index('api_keys_tenant').on(t.clientId, t.environment, t.id)],
);

export const flows = pgTable(
  'flows',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    name: text('name').notNull(),
    version: integer('version').notNull(),
    definition: jsonb('definition').$type<FlowDefinition>().notNull(),
    /** draft → active → retired; at most one active version per name. */
    status: text('status').$type<'draft' | 'active' | 'retired'>().notNull(),
    createdAt: ts('created_at').notNull(),
    activatedAt: ts('activated_at'),
  },
  (t) => [
    uniqueIndex('flows_version').on(t.clientId, t.environment, t.name, t.version),
    uniqueIndex('flows_one_active').on(t.clientId, t.environment, t.name).where(sql`status = 'active'`),
  ],
);

export const cases = pgTable(
  'cases',
  {
    id: text('id').primaryKey(),
    /**
     * No foreign keys to clients and flows: every concurrent creation would take a key-share lock
     * on the same two parent rows (multixacts), about a third of PostgreSQL's CPU per creation
     * under load. Integrity holds without them: the creating statement writes only the client of the
     * authenticated key and a flow of that client and environment, and clients and flows are
     * never deleted (a trigger refuses it, migration 0007).
     */
    clientId: text('client_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    flowId: text('flow_id').notNull(),
    flowName: text('flow_name').notNull(),
    flowVersion: integer('flow_version').notNull(),
    country: text('country').notNull(),
    externalRef: text('external_ref'),
    /** What the client declared, sealed: personal data is never stored in clear. */
    declaredSealed: text('declared_sealed'),
    state: text('state').$type<CaseState>().notNull(),
    status: text('status').$type<CaseStatus>().notNull(),
    journeyStarted: smallint('journey_started').notNull().default(0),
    checks: jsonb('checks').$type<unknown[]>().notNull().default([]),
    duplicates: jsonb('duplicates').$type<string[]>().notNull().default([]),
    decision: jsonb('decision').$type<Record<string, unknown> | null>(),
    resubmission: jsonb('resubmission').$type<{ steps: string[] } | null>(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    index('cases_tenant_id').on(t.clientId, t.environment, t.id),
    index('cases_tenant_ref').on(t.clientId, t.environment, t.externalRef),
    index('cases_tenant_status').on(t.clientId, t.environment, t.status, t.id),
    // Decision analytics read the cases decided since a date (decisionGroups). `decided_at` is an
    // ISO string written by toISOString (UTC, fixed width), so its text order is its time order;
    // a timestamptz cast could not be indexed (it depends on the session's time zone).
    index('cases_tenant_decided').on(t.clientId, t.environment, sql`(${t.decision}->>'decided_at')`).where(sql`${t.decision} IS NOT NULL`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    /** sha256 of the journey token; the token is in the url returned once and nowhere else. */
    tokenHash: text('token_hash').notNull(),
    locale: text('locale').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash').on(t.tokenHash), index('sessions_case').on(t.caseId)],
);

/**
 * A desktop-to-phone handoff (docs/journey.md#continuing-on-a-phone): the journey on a device
 * without a usable camera asks for a short code that opens the same case on a phone. The code is
 * in the short link and the QR code and nowhere else: only its sha256 is stored. Opening it (once)
 * issues the phone its own session of the case; the desktop's session never leaves the desktop.
 */
export const handoffs = pgTable(
  'handoffs',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    /** The desktop's session, which asked for the handoff and follows it. */
    sessionId: text('session_id').notNull().references(() => sessions.id),
    /** sha256 of the normalised short code. */
    codeHash: text('code_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    /** Until when the code can be opened. */
    expiresAt: ts('expires_at').notNull(),
    openedAt: ts('opened_at'),
    /** The phone's session, issued when the code was opened. */
    phoneSessionId: text('phone_session_id').references(() => sessions.id),
    /** A newer handoff of the same desktop session replaced this one before it was opened. */
    supersededAt: ts('superseded_at'),
  },
  (t) => [uniqueIndex('handoffs_code_hash').on(t.codeHash), index('handoffs_session').on(t.sessionId)],
);

/** The case journal: who did what to a case and when, written in the same transaction as the act. */
export const caseJournal = pgTable(
  'case_journal',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    at: ts('at').notNull(),
  },
  (t) => [index('case_journal_case').on(t.caseId, t.id)],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    apiKeyId: text('api_key_id').notNull(),
    key: text('key').notNull(),
    /** sha256 of method, target and raw body: a reuse with another request is refused. */
    requestHash: text('request_hash').notNull(),
    state: text('state').$type<'running' | 'done'>().notNull(),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body'),
    createdAt: ts('created_at').notNull(),
    /** When a running request is presumed dead (its process crashed) and may be taken over. */
    lockedUntil: ts('locked_until').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /**
     * The request's v2 signature (null for the console's unsigned calls): unique per key while the
     * entry lives, so a captured signed request sent again under a new Idempotency-Key is refused
     * (signature_replayed) by the database itself, on every instance. An entry outlives the 300 s
     * in which its signature is accepted at all.
     */
    signature: text('signature'),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.key] }),
    index('idempotency_expiry').on(t.expiresAt),
    uniqueIndex('idempotency_signature').on(t.apiKeyId, t.signature),
  ],
);

/** Integration calls per day and response code (console calls are not counted). */
export const apiUsageDaily = pgTable(
  'api_usage_daily',
  {
    clientId: text('client_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    statusCode: smallint('status_code').notNull(),
    calls: bigint('calls', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment, t.day, t.statusCode] })],
);

/** disabled: by the client (no new delivery, what was scheduled waits); suspended: by the eighth failure. */
export type WebhookEndpointStatus = 'active' | 'suspended' | 'disabled';
/**
 * pending: not attempted yet; retrying: failed at least once, next attempt at next_attempt_at;
 * succeeded: a 2xx came back; failed: eight failures, no more automatic attempts (replayable);
 * cancelled: its endpoint was deleted before it was sent.
 */
export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'cancelled';

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    /** The signing secret, sealed with the master key (aad `webhook_endpoint:<id>:secret`): it is needed to sign. */
    secretSealed: text('secret_sealed').notNull(),
    /**
     * After a rotation, the previous secret (sealed like the current one, aad
     * `webhook_endpoint:<id>:previous_secret`) signs beside the new one until its expiry, so
     * receivers can switch without refusing a delivery; erased once past it.
     */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    description: text('description'),
    status: text('status').$type<WebhookEndpointStatus>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    suspendedAt: ts('suspended_at'),
    disabledAt: ts('disabled_at'),
    /**
     * Deleted endpoints stay as rows (without their secrets) while the delivery log refers to
     * them, then go with the log's retention; every endpoint route treats them as absent.
     */
    deletedAt: ts('deleted_at'),
  },
  (t) => [index('webhook_endpoints_tenant').on(t.clientId, t.environment, t.id)],
);

/** The outbox: one row per event, written in the transaction of the state change that causes it. */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    type: text('type').notNull(),
    objectId: text('object_id').notNull(),
    /** The exact body every delivery of this event sends (and signs). */
    body: text('body').notNull(),
    occurredAt: ts('occurred_at').notNull(),
    /**
     * The API request (`req_…`) that caused the event, directly or through a check job: the
     * worker logs it with each delivery, so one id can be followed from the API to the receiver.
     */
    requestId: text('request_id'),
  },
  (t) => [index('webhook_events_tenant').on(t.clientId, t.environment, t.id)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    endpointId: text('endpoint_id').notNull().references(() => webhookEndpoints.id),
    eventId: text('event_id').notNull().references(() => webhookEvents.id),
    eventType: text('event_type').notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull(),
    /** Failed and successful attempts recorded so far. */
    attemptCount: integer('attempt_count').notNull().default(0),
    /** When the next attempt is due; null once succeeded or failed. */
    nextAttemptAt: ts('next_attempt_at'),
    /** A worker's claim: the attempt in flight belongs to claim_token until locked_until (then it may be taken over). */
    lockedUntil: ts('locked_until'),
    claimToken: text('claim_token'),
    lastAttemptAt: ts('last_attempt_at'),
    lastResponseStatus: smallint('last_response_status'),
    lastError: text('last_error'),
    deliveredAt: ts('delivered_at'),
    /** The delivery this one replays (a replay is a new delivery of the same event). */
    replayOf: text('replay_of'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_tenant').on(t.clientId, t.environment, t.id),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.id),
    index('webhook_deliveries_event').on(t.eventId),
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`status IN ('pending', 'retrying')`),
  ],
);

/** Every attempt of every delivery, as the worker saw it (no response body is kept). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: ts('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    responseStatus: smallint('response_status'),
    /** Null on a 2xx; otherwise a short code: http_status, redirect, timeout, connection_refused… */
    error: text('error'),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);

// ---------------------------------------------------------------- operators and review

export type OperatorRoleColumn = 'administrator' | 'supervisor' | 'reviewer' | 'support';
export type SensitivityColumn = 'standard' | 'sensitive' | 'restricted';
export type TaskStatusColumn = 'open' | 'second_validation' | 'escalated' | 'closed';

/**
 * The client's operators and their clearances. The service does not authenticate them: the
 * console presents the identity provider's subject, attached at the first resolve that carries
 * the invitation token (kept only as a hash, returned once at invitation).
 */
export const operators = pgTable(
  'operators',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    name: text('name').notNull(),
    email: text('email'),
    role: text('role').$type<OperatorRoleColumn>().notNull(),
    /** ISO 3166-1 alpha-2 codes, or ["*"] for every country. */
    countries: jsonb('countries').$type<string[]>().notNull(),
    sensitivity: text('sensitivity').$type<SensitivityColumn>().notNull(),
    status: text('status').$type<'invited' | 'active' | 'revoked'>().notNull(),
    /** The identity provider's `sub`, attached at the first resolve. */
    subject: text('subject'),
    invitationHash: text('invitation_hash'),
    invitationExpiresAt: ts('invitation_expires_at'),
    lastConnectionAt: ts('last_connection_at'),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    index('operators_tenant').on(t.clientId, t.environment, t.id),
    uniqueIndex('operators_subject').on(t.clientId, t.environment, t.subject).where(sql`subject IS NOT NULL`),
    uniqueIndex('operators_invitation').on(t.invitationHash).where(sql`invitation_hash IS NOT NULL`),
  ],
);

/** A case in review: one task per stay in review, with its risk, due date, lock and status. */
export const reviewTasks = pgTable(
  'review_tasks',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    /** Copied from the case: the clearance filter runs on the task alone. */
    country: text('country').notNull(),
    /** 0 standard, 1 sensitive, 2 restricted (the order of SENSITIVITY_LEVELS), compared with <=. */
    sensitivityRank: smallint('sensitivity_rank').notNull(),
    riskScore: smallint('risk_score').notNull(),
    dueAt: ts('due_at').notNull(),
    status: text('status').$type<TaskStatusColumn>().notNull(),
    doubleValidation: boolean('double_validation').notNull(),
    /** Codes saying why the case went to review (no personal data). */
    reasons: jsonb('reasons').$type<string[]>().notNull(),
    lockedBy: text('locked_by'),
    lockExpiresAt: ts('lock_expires_at'),
    /** approve, reject or resubmit once concluded; null when the case left review otherwise. */
    outcome: text('outcome'),
    closedBy: text('closed_by'),
    closedAt: ts('closed_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('review_tasks_queue').on(t.clientId, t.environment, t.riskScore.desc(), t.dueAt, t.id).where(sql`status <> 'closed'`),
    index('review_tasks_status').on(t.clientId, t.environment, t.status, t.riskScore.desc(), t.dueAt, t.id),
    index('review_tasks_created').on(t.clientId, t.environment, t.createdAt),
    index('review_tasks_closed').on(t.clientId, t.environment, t.closedAt),
    index('review_tasks_case').on(t.caseId),
    uniqueIndex('review_tasks_one_active').on(t.caseId).where(sql`status <> 'closed'`),
  ],
);

/** Each outcome given on a task, by an operator (`op:<id>`) or a key (`key:<id>`); one per actor and task. */
export const reviewDecisions = pgTable(
  'review_decisions',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    taskId: text('task_id').notNull().references(() => reviewTasks.id),
    caseId: text('case_id').notNull().references(() => cases.id),
    actor: text('actor').notNull(),
    outcome: text('outcome').$type<'approve' | 'reject' | 'resubmit'>().notNull(),
    reasonCode: text('reason_code'),
    steps: jsonb('steps').$type<string[] | null>(),
    /** A free comment is personal data: sealed with the master keyring (aad `review_decision:<id>:comment`). */
    commentSealed: text('comment_sealed'),
    /** The checks (types) an approval went against: those that failed or needed attention; empty for none. */
    overriddenChecks: jsonb('overridden_checks').$type<string[]>().notNull().default([]),
    /**
     * Why the operator or key decided against those checks: may name the person, so sealed under
     * the case's data key (purpose `review_decision:<id>:justification`), erased with its data.
     */
    justificationSealed: text('justification_sealed'),
    /** What the decision did to the task: concluded, await_second_validation or escalate. */
    effect: text('effect').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('review_decisions_actor').on(t.taskId, t.actor), index('review_decisions_case').on(t.caseId, t.id)],
);

/**
 * A field entered by an operator from the image, kept beside the value read (never over it).
 * Previous and entered values are personal data: sealed (aad `review_correction:<id>`).
 */
export const reviewCorrections = pgTable(
  'review_corrections',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    taskId: text('task_id').notNull().references(() => reviewTasks.id),
    actor: text('actor').notNull(),
    field: text('field').notNull(),
    sealed: text('sealed').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('review_corrections_case').on(t.caseId, t.id)],
);

/** Revisions of decided cases by a supervisor. */
export const caseRevisions = pgTable(
  'case_revisions',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    taskId: text('task_id').notNull().references(() => reviewTasks.id),
    actor: text('actor').notNull(),
    previousOutcome: text('previous_outcome').notNull(),
    previousReasonCode: text('previous_reason_code'),
    outcome: text('outcome').notNull(),
    reasonCode: text('reason_code'),
    commentSealed: text('comment_sealed'),
    /** As on a decision: the checks a revision to approved went against, and why (sealed, `case_revision:<id>:justification`). */
    overriddenChecks: jsonb('overridden_checks').$type<string[]>().notNull().default([]),
    justificationSealed: text('justification_sealed'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('case_revisions_case').on(t.caseId, t.id)],
);

/**
 * The data keys of a case, wrapped by the key wrapper (master key or KMS); one per class (`data`,
 * `biometric`). Erasure destroys them: every value sealed under them, in any copy or backup,
 * becomes unreadable (crypto-shredding). Created on the first personal data a case receives.
 */
export const caseKeys = pgTable(
  'case_keys',
  {
    caseId: text('case_id').notNull().references(() => cases.id),
    keyClass: text('key_class').$type<'data' | 'biometric'>().notNull(),
    wrapped: text('wrapped'),
    createdAt: ts('created_at').notNull(),
    destroyedAt: ts('destroyed_at'),
  },
  (t) => [primaryKey({ columns: [t.caseId, t.keyClass] })],
);

// ---------------------------------------------------------------- hosted journey

/**
 * Where the person is in the journey of a case, so it resumes after a reload or with a new link.
 * One row per case. What the person entered and answered is sealed under the case's `data` key
 * (purposes `applicant` and `answers`); the document choice and the step flags are not personal.
 */
export const journeys = pgTable('journeys', {
  caseId: text('case_id')
    .primaryKey()
    .references(() => cases.id),
  clientId: text('client_id').notNull().references(() => clients.id),
  environment: text('environment').$type<Environment>().notNull(),
  /** Starts at 1; a resubmission decision opens the next round (only the steps it names). */
  round: integer('round').notNull().default(1),
  consentedAt: ts('consented_at'),
  declinedAt: ts('declined_at'),
  applicantSealed: text('applicant_sealed'),
  answersSealed: text('answers_sealed'),
  /** Points and flags of the answers: the step report shows them without revealing the answers. */
  questionnaireScore: jsonb('questionnaire_score').$type<{ points: number; flags: string[] } | null>(),
  documentCountry: text('document_country'),
  documentType: text('document_type'),
  /** When the round was finished (the case left collecting); null while the person is at it. */
  finishedAt: ts('finished_at'),
  updatedAt: ts('updated_at').notNull(),
});

/**
 * Images the journey received. The bytes are in the blob store, sealed under the case key of the
 * piece's class (`data` for document sides, `biometric` for selfies and challenges); the row keeps
 * only the blob id, size, type, pixel size and a keyed HMAC of the content (never a plain hash).
 * A retake supersedes the previous piece of its kind (its blob is deleted).
 */
export const pieces = pgTable(
  'pieces',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    sessionId: text('session_id').notNull(),
    round: integer('round').notNull(),
    kind: text('kind').notNull(),
    keyClass: text('key_class').$type<'data' | 'biometric'>().notNull(),
    blobId: text('blob_id').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    /** `v1.<key id>.<hex>`: HMAC-SHA256 of the bytes under a key derived from the master key. */
    contentHmac: text('content_hmac').notNull(),
    receivedAt: ts('received_at').notNull(),
    supersededAt: ts('superseded_at'),
    /** When the blob was deleted (retake, retention or erasure): the piece is no longer available. */
    deletedAt: ts('deleted_at'),
    /**
     * On a document's front, where the checks found the face they compared (fractions of the
     * oriented image, engine's RelativeBox): the review station cuts the portrait from the sealed
     * image there when it is asked for. A position, no personal data; null where no face was found.
     */
    faceBox: jsonb('face_box').$type<{ left: number; top: number; width: number; height: number } | null>(),
  },
  (t) => [
    index('pieces_case').on(t.caseId, t.id),
    index('pieces_case_kind').on(t.caseId, t.kind),
    // One current piece per kind and round, except the live sequence's frames (many, in capture order).
    uniqueIndex('pieces_current').on(t.caseId, t.round, t.kind).where(sql`superseded_at IS NULL AND kind <> 'liveness_frame'`),
  ],
);

/**
 * Challenges of the live sequence (docs/liveness.md#the-live-sequence): drawn by the service when
 * the face step starts, answered once by one upload of frames. In the database, not in memory, so
 * that any API instance accepts the answer and a nonce is used once across all of them.
 */
export const faceChallenges = pgTable(
  'face_challenges',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    sessionId: text('session_id').notNull(),
    round: integer('round').notNull(),
    /** The movements in the order drawn (LivenessChallenge values). */
    movements: jsonb('movements').$type<string[]>().notNull(),
    holdMs: integer('hold_ms').notNull(),
    /** sha256 (hex) of the nonce given to the journey; the nonce itself is not kept. */
    nonceHash: text('nonce_hash').notNull(),
    issuedAt: ts('issued_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** When its sequence arrived: a challenge is answered once. */
    answeredAt: ts('answered_at'),
    /**
     * The answer's metadata: each frame's piece id and capture time (ms from the first), and what
     * the browser said about its camera. No image, no personal data (a camera's model name at most).
     */
    sequence: jsonb('sequence').$type<{ frames: { piece_id: string; t: number }[]; camera: Record<string, string | number> } | null>(),
  },
  (t) => [index('face_challenges_case').on(t.caseId, t.round, t.id)],
);

/**
 * The certificates a client trusts to issue wallet credentials (docs/wallet.md), per environment:
 * IACA roots for mdoc (ISO/IEC 18013-5), issuer certificates (or their CAs) for SD-JWT VC. Public
 * data, kept in clear; what the console shows is parsed once at upload.
 */
export const trustAnchors = pgTable(
  'trust_anchors',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    /** `iaca` (mdoc) or `sd_jwt_issuer` (SD-JWT VC). */
    kind: text('kind').$type<'iaca' | 'sd_jwt_issuer'>().notNull(),
    label: text('label'),
    certificatePem: text('certificate_pem').notNull(),
    /** SHA-256 of the DER, hex: one anchor per certificate per client and environment. */
    fingerprint: text('fingerprint').notNull(),
    subject: text('subject').notNull(),
    notBefore: ts('not_before').notNull(),
    notAfter: ts('not_after').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('trust_anchors_certificate').on(t.clientId, t.environment, t.fingerprint), index('trust_anchors_client').on(t.clientId, t.environment, t.createdAt)],
);

/**
 * The verifier identity a client's wallet requests are signed with (OpenID4VP `x509_san_dns`
 * client identifier), per environment: the certificate in clear, the private key sealed with the
 * master keyring (aad `wallet_verifier:<client>:<environment>`). Generated on first use when none
 * was configured (docs/wallet.md).
 */
export const walletVerifiers = pgTable(
  'wallet_verifiers',
  {
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    /** PEM, leaf first, then any intermediates. */
    certificateChainPem: text('certificate_chain_pem').notNull(),
    privateKeySealed: text('private_key_sealed').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment] })],
);

/**
 * One OpenID4VP request of a journey round (cross-device by QR/link, or same-device through the
 * Digital Credentials API): the nonce the presentation must be bound to, the ephemeral key its
 * encrypted response is opened with (sealed with the master keyring, aad
 * `wallet_request:<id>:key`), answered once.
 */
export const walletRequests = pgTable(
  'wallet_requests',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id').notNull().references(() => cases.id),
    sessionId: text('session_id').notNull(),
    round: integer('round').notNull(),
    /** `cross_device` (request by reference, direct_post.jwt) or `dc_api` (the browser's Digital Credentials API). */
    mode: text('mode').$type<'cross_device' | 'dc_api'>().notNull(),
    /** The claims asked for (the flow's needs), in the catalogue's names. */
    claims: jsonb('claims').$type<string[]>().notNull(),
    nonce: text('nonce').notNull(),
    /** The OpenID4VP `state` (cross-device), high-entropy, the response's key to this row. */
    state: text('state').notNull(),
    encryptionKeySealed: text('encryption_key_sealed').notNull(),
    /**
     * The signed request object (public: a wallet fetches it by the request's id), kept as signed at
     * issue since it carries the public part of this request's encryption key.
     */
    requestJwt: text('request_jwt'),
    issuedAt: ts('issued_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** When a wallet fetched the request object (cross-device). */
    fetchedAt: ts('fetched_at'),
    /** When a response arrived and was judged: a request is answered once. */
    answeredAt: ts('answered_at'),
    /** `accepted`, or the refusal's reason (a `wallet_*` check reason). */
    outcome: text('outcome'),
    /**
     * An accepted presentation's verified claims and facts (format, issuer, validity), sealed under
     * the case's data key (purpose `wallet_presentation:<id>`): erased with the case's keys. Its
     * portrait is a `wallet_portrait` piece. Null for a refusal: nothing of it is stored.
     */
    presentationSealed: text('presentation_sealed'),
  },
  (t) => [uniqueIndex('wallet_requests_state').on(t.state), index('wallet_requests_case').on(t.caseId, t.round, t.issuedAt)],
);

/**
 * The sandbox's test wallet issuer (docs/wallet.md#the-wallet-in-a-case), one per installation:
 * generated on first use with `@idv/wallet/testing` and kept, its private material sealed with the
 * master keyring (aad `wallet_sandbox_issuer:<id>`), so every instance trusts the same issuer in the
 * sandbox environment (never in production) and an integrator's tests can be issued credentials by it.
 */
export const walletSandboxIssuer = pgTable('wallet_sandbox_issuer', {
  id: text('id').primaryKey(),
  iacaPem: text('iaca_pem').notNull(),
  sdJwtIssuerPem: text('sd_jwt_issuer_pem').notNull(),
  issuerSealed: text('issuer_sealed').notNull(),
  createdAt: ts('created_at').notNull(),
});

/** Origins allowed to frame the journey, per client and environment (empty: none). */
export const embeddingSettings = pgTable(
  'embedding_settings',
  {
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    origins: jsonb('origins').$type<string[]>().notNull(),
    updatedBy: text('updated_by').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment] })],
);

/** The client's own journal: changes to client-level settings (who, what, when), beside the case journal. */
export const clientJournal = pgTable(
  'client_journal',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    at: ts('at').notNull(),
  },
  (t) => [index('client_journal_tenant').on(t.clientId, t.environment, t.id)],
);

// ---------------------------------------------------------------- personal data

/**
 * What was read from the document of a case, one row per journey round (written by the checks
 * engine). The identity and document fields read are sealed under the case's `data` key
 * (purpose `document_reading:<round>`), the face templates (document portrait and selfie) under
 * its `biometric` key (purpose `face_templates:<round>`); erasure sets both to null, as it does
 * the keyed fingerprints used to find duplicates. The agreement of the printed zone with the
 * machine-readable zone names fields, never values, and is kept (it is a verdict).
 */
export const documentReadings = pgTable(
  'document_readings',
  {
    caseId: text('case_id')
      .notNull()
      .references(() => cases.id),
    round: integer('round').notNull(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    fieldsSealed: text('fields_sealed'),
    faceTemplatesSealed: text('face_templates_sealed'),
    /**
     * The descriptor version that made the sealed templates (FACE_TEMPLATE_VERSION of @idv/engine),
     * written with them. Null for readings sealed before migration 0018 and not indexed then: the
     * worker's start-up pass (FaceSearchIndex.indexMissing) opens each once and writes the current
     * version (indexed) or `superseded:<length>` (an older descriptor's templates, never indexed),
     * so that no start opens them again.
     */
    faceTemplatesDescriptor: text('face_templates_descriptor'),
    /** Keyed HMACs (`v1.<key id>.<hex>`) of the document number and zone, to find duplicates without the values. */
    fingerprints: jsonb('fingerprints').$type<string[] | null>(),
    /** Per field read: agree, differ or absent between the printed zone and the machine-readable zone. */
    zoneAgreement: jsonb('zone_agreement').$type<Record<string, 'agree' | 'differ' | 'absent'>>().notNull().default({}),
    readAt: ts('read_at').notNull(),
    erasedAt: ts('erased_at'),
  },
  (t) => [primaryKey({ columns: [t.caseId, t.round] })],
);

/**
 * The dimension of the face vector index: the length of the engine's face template
 * (`FACE_TEMPLATE_LENGTH` of @idv/engine, packages/engine/src/face-template.ts). The migration
 * that creates the column (0015_face_index.sql) fixes the same number; tests/worker/duplicates
 * compares the column with the engine's constant. A descriptor of another length needs a
 * migration that empties `face_vectors` and changes the column (and its index).
 */
export const FACE_VECTOR_DIMENSIONS = 512;

/**
 * The key of a client's face vector index in one environment (docs/personal-data.md, "The face
 * search index"): 32 random bytes, wrapped under the master keyring like a case key (context
 * `face_index:<client>:<environment>`, re-wrapped by a master key rotation). It seeds the secret
 * random rotation applied to every template before it is indexed.
 */
export const faceIndexKeys = pgTable(
  'face_index_keys',
  {
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    wrapped: text('wrapped').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment] })],
);

/**
 * The duplicate search's index: each face template of a reading (`selfie`, `portrait`), rotated
 * by its tenant's secret rotation (distances unchanged), with the descriptor version that made it
 * (templates of another version are never compared). HNSW on Euclidean distance (pgvector's
 * `<->`, as `faceDistance`). Erasure and retention delete a case's rows.
 */
export const faceVectors = pgTable(
  'face_vectors',
  {
    caseId: text('case_id')
      .notNull()
      .references(() => cases.id),
    round: integer('round').notNull(),
    source: text('source').$type<'selfie' | 'portrait'>().notNull(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    descriptor: text('descriptor').notNull(),
    embedding: vector('embedding', { dimensions: FACE_VECTOR_DIMENSIONS }).notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.caseId, t.round, t.source] }),
    index('face_vectors_hnsw').using('hnsw', t.embedding.op('vector_l2_ops')),
  ],
);

/**
 * The unmask counter: the last time each operator unmasked each case. Distinct cases with
 * `last_at` in the past hour are the operator's count over every unmask route; beyond twenty,
 * unmasking another case needs a recent re-authentication.
 */
export const operatorUnmasks = pgTable(
  'operator_unmasks',
  {
    operatorId: text('operator_id')
      .notNull()
      .references(() => operators.id),
    caseId: text('case_id')
      .notNull()
      .references(() => cases.id),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    lastAt: ts('last_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.operatorId, t.caseId] }), index('operator_unmasks_recent').on(t.operatorId, t.lastAt)],
);

/**
 * A case opened to a support account (the provider's staff, role `support`) for four hours with
 * a reason, on a case in review; closed early by a revocation. The reason is free text, so it is
 * sealed under the case's `data` key (purpose `support_grant:<id>:reason`).
 */
export const supportGrants = pgTable(
  'support_grants',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    caseId: text('case_id')
      .notNull()
      .references(() => cases.id),
    operatorId: text('operator_id')
      .notNull()
      .references(() => operators.id),
    reasonSealed: text('reason_sealed'),
    grantedBy: text('granted_by').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    revokedBy: text('revoked_by'),
  },
  (t) => [
    index('support_grants_tenant').on(t.clientId, t.environment, t.id),
    index('support_grants_operator').on(t.operatorId, t.expiresAt),
    index('support_grants_case').on(t.caseId),
  ],
);

// ---------------------------------------------------------------- automated checks

export type CheckJobStatus = 'pending' | 'done' | 'failed';

/**
 * One run of the automated checks per case and journey round, written in the transaction that
 * finishes the round (so a finished journey is never left without its checks). Claimed with FOR
 * UPDATE SKIP LOCKED and a lease like webhook deliveries; the runner stores the reports, the
 * reading and the decision, and marks the job done, in one transaction: a crash before that
 * commit leaves the job to be run again once the lease lapses, a re-run after it finds it done.
 */
export const checkJobs = pgTable(
  'check_jobs',
  {
    caseId: text('case_id')
      .notNull()
      .references(() => cases.id),
    round: integer('round').notNull(),
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    status: text('status').$type<CheckJobStatus>().notNull(),
    /** Claims so far (a run that crashed or failed counts). */
    attempts: integer('attempts').notNull().default(0),
    /** Not claimed before this time (a failed run waits before the next). */
    availableAt: ts('available_at').notNull(),
    lockedUntil: ts('locked_until'),
    claimToken: text('claim_token'),
    /** A short code of the last failure (never personal data). */
    lastError: text('last_error'),
    /** The API request (`req_…`) that queued the job (the journey's finish): in the worker's log lines about it. */
    requestId: text('request_id'),
    createdAt: ts('created_at').notNull(),
    finishedAt: ts('finished_at'),
  },
  (t) => [primaryKey({ columns: [t.caseId, t.round] }), index('check_jobs_due').on(t.availableAt).where(sql`status = 'pending'`)],
);

// ---------------------------------------------------------------- operator console (console server)

/**
 * What the console server keeps between requests, shared by every console instance: operators'
 * sessions, sign-ins in progress (state, nonce, PKCE verifier), invitations presented before a
 * sign-in, actions waiting for a re-authentication and their results. The key is the SHA-256 of the opaque id the browser holds
 * (or of the OAuth state), never the id itself; everything else is sealed with the master keyring
 * (the ID token is in it), bound to its key and kind.
 */
export const consoleState = pgTable(
  'console_state',
  {
    keyHash: text('key_hash').primaryKey(),
    kind: text('kind').$type<'session' | 'login' | 'invitation' | 'action' | 'result'>().notNull(),
    sealed: text('sealed').notNull(),
    createdAt: ts('created_at').notNull(),
    /** For a session, its idle expiry (the absolute one is in the sealed part); moved at each request. */
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('console_state_expiry').on(t.expiresAt)],
);

// ---------------------------------------------------------------- usage (metering)

/**
 * One row per measured unit, written in the transaction of the act that causes it (docs/usage.md).
 * `source_key` names the act (`verification:<case id>`, `review:<task id>`…): the same act
 * recorded twice finds its row and adds nothing. Only codes, quantities, instants and case ids:
 * the export is these rows. Rows are never updated or deleted (no personal data in them).
 */
export const usageUnits = pgTable(
  'usage_units',
  {
    sourceKey: text('source_key').primaryKey(),
    clientId: text('client_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    service: text('service').$type<UsageService>().notNull(),
    caseId: text('case_id').notNull(),
    quantity: integer('quantity').notNull(),
    occurredAt: ts('occurred_at').notNull(),
  },
  // The export reads one tenant's month in this order (instant, then key: a total order).
  (t) => [index('usage_units_export').on(t.clientId, t.environment, t.occurredAt, t.sourceKey)],
);

/**
 * Monthly totals, kept in the same statement as each new unit, so reading a month's usage reads
 * a few rows whatever the volume. A total is spread over USAGE_SLOTS rows (a random slot per
 * unit, summed when read): concurrent acts of one client rarely wait on the same row lock until
 * their commits.
 */
export const usageMonthly = pgTable(
  'usage_monthly',
  {
    clientId: text('client_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    period: text('period').notNull(),
    service: text('service').$type<UsageService>().notNull(),
    slot: smallint('slot').notNull(),
    quantity: bigint('quantity', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment, t.period, t.service, t.slot] })],
);

// ---------------------------------------------------------------- contract (subscriptions, quotas)

/**
 * What a client subscribes to: one row per service and period of validity, set by the provider
 * (`npm run admin -- contract …`). For one client and service, periods never overlap (the admin
 * command ends the previous one where the new one starts). Rows are kept when they end: the
 * contract lists ended subscriptions too. Quotas count production units only.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull().references(() => clients.id),
    service: text('service').$type<UsageService>().notNull(),
    /** A label of the provider's price list. */
    offer: text('offer').notNull(),
    /** Units per calendar month (UTC); null is unlimited. */
    monthlyQuota: bigint('monthly_quota', { mode: 'number' }),
    overQuota: text('over_quota').$type<OverQuotaBehaviour>().notNull(),
    startsAt: ts('starts_at').notNull(),
    /** Exclusive; null is open-ended. */
    endsAt: ts('ends_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('subscriptions_client').on(t.clientId, t.service, t.startsAt)],
);

/**
 * The quota events already sent: one row per client, environment, service, month and kind. The
 * transaction of the unit that reaches a line inserts the row and emits the event together; the
 * primary key makes it once per month whatever the concurrency.
 */
export const quotaNotices = pgTable(
  'quota_notices',
  {
    clientId: text('client_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    service: text('service').$type<UsageService>().notNull(),
    period: text('period').notNull(),
    kind: text('kind').$type<'threshold' | 'reached'>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment, t.service, t.period, t.kind] })],
);

// ---------------------------------------------------------------- blob store (BLOB_STORE=postgres)

/** Bytes as PostgreSQL's bytea; both drivers hand back a Buffer or a Uint8Array. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

/**
 * Sealed blobs kept in the database instead of files (packages/blobstore, PostgresBlobStore): one
 * row per blob, its bytes in `blob_chunks`. The store never sees clear bytes: what it holds is
 * already sealed under a case key.
 */
export const blobs = pgTable('blobs', {
  id: text('id').primaryKey(),
  sizeBytes: integer('size_bytes').notNull(),
  chunkCount: integer('chunk_count').notNull(),
  writtenAt: ts('written_at').notNull(),
});

/**
 * A blob's bytes in chunks of at most 256 KiB (`seq` from 0): no row and no statement parameter is
 * ever the size of a whole image, and a reader can take them in order. Deleting the blob deletes
 * its chunks (ON DELETE CASCADE). The column is stored EXTERNAL (see the migration): sealed bytes
 * do not compress, so PostgreSQL does not try.
 */
export const blobChunks = pgTable(
  'blob_chunks',
  {
    blobId: text('blob_id')
      .notNull()
      .references(() => blobs.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.blobId, t.seq] })],
);

/**
 * The journey's appearance per client and environment: display name, colours (checked for WCAG AA
 * contrast by @idv/domain before they are stored) and an optional small logo, kept here rather than
 * in the blob store: it is no personal data, at most 256 KiB, and read by the journey server by
 * its SHA-256 (the address changes with the logo, so browsers may cache it for good).
 */
export const journeyAppearance = pgTable(
  'journey_appearance',
  {
    clientId: text('client_id').notNull().references(() => clients.id),
    environment: text('environment').$type<Environment>().notNull(),
    displayName: text('display_name'),
    primaryColor: text('primary_color').notNull(),
    backgroundColor: text('background_color').notNull(),
    logo: bytea('logo'),
    logoType: text('logo_type'),
    logoSha256: text('logo_sha256'),
    updatedBy: text('updated_by').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.environment] })],
);
