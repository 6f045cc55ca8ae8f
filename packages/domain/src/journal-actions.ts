/**
 * The closed lists of journal actions: what the case journal and the client's own journal record,
 * each with what it means in plain English (the console shows these words, the raw action on
 * hover; French is in the console's labels). The repositories type their `action` with these, so
 * a new action is a type error until it is listed here.
 */
export const CASE_JOURNAL_ACTIONS = {
  'case.created': 'Case created',
  'case.consulted': 'Case consulted',
  'case.decided': 'Case decided',
  'case.decision_revised': 'Decision revised',
  'case.resubmission_requested': 'Resubmission requested',
  'checks.completed': 'Automated checks completed',
  'session.created': 'Journey link created',
  'handoff.created': 'Phone hand-off code created',
  'handoff.opened': 'Phone hand-off code opened',
  'journey.started': 'Journey started',
  'journey.round_started': 'New journey round started',
  'journey.consent_given': 'Consent given',
  'journey.declined': 'Consent declined',
  'journey.applicant_entered': 'Identity entered by the person',
  'journey.questionnaire_answered': 'Questionnaire answered',
  'journey.document_chosen': 'Document type chosen',
  'journey.piece_received': 'Image received',
  'journey.face_challenge_issued': 'Face challenge issued',
  'journey.sequence_received': 'Live sequence received',
  'journey.wallet_requested': 'Wallet presentation requested',
  'journey.wallet_presented': 'Wallet presentation accepted',
  'journey.wallet_refused': 'Wallet presentation refused',
  'journey.submitted': 'Journey submitted',
  'review.opened': 'Sent to review',
  'review.claimed': 'Review task claimed',
  'review.correction_added': 'Correction added',
  'review.decision_recorded': 'Review decision recorded',
  'review.revision_recorded': 'Decision revision recorded',
  'review.checks_overridden': 'Approved despite checks that failed or need attention (justified)',
  'personal_data.consulted': 'Personal data consulted',
  'personal_data.unmasked': 'Personal data revealed',
  'personal_data.erased': 'Personal data erased',
  'piece.downloaded': 'Image downloaded',
  'retention.images_deleted': 'Images deleted at the end of retention',
  'support_access.granted': 'Support access granted',
  'support_access.revoked': 'Support access revoked',
} as const;
export type CaseJournalAction = keyof typeof CASE_JOURNAL_ACTIONS;

/** Changes to the client's settings (flows, webhooks, the journey's appearance and embedding); no screen shows this journal yet. */
const CLIENT_JOURNAL_ACTIONS = {
  'flow.version_created': 'Flow version created',
  'flow.version_activated': 'Flow version activated',
  'webhook_endpoint.created': 'Webhook endpoint declared',
  'webhook_endpoint.updated': 'Webhook endpoint changed',
  'webhook_endpoint.disabled': 'Webhook endpoint disabled',
  'webhook_endpoint.enabled': 'Webhook endpoint enabled',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'webhook_endpoint.secret_rotated': 'Webhook signing secret rotated',
  'journey_appearance.updated': "Journey's appearance changed",
  'journey_embedding.updated': "Journey's embedding settings changed",
  'trust_anchor.added': 'Wallet trust anchor added',
  'trust_anchor.removed': 'Wallet trust anchor removed',
  'wallet_verifier.created': 'Wallet verifier identity created',
} as const;
export type ClientJournalAction = keyof typeof CLIENT_JOURNAL_ACTIONS;
