import type { FlowDefinition } from './flow.ts';
import { STANDARD_FLOW } from './standard-flow.ts';

/**
 * Starting points for a new flow (the console's "New flow", docs/flows.md#templates). Each is a
 * complete, valid definition (a test holds them to that) built on the demo flow `standard`, whose
 * face thresholds are calibrated (docs/face-match.md): a template changes what is asked and how a
 * doubt is handled, never the thresholds.
 */
const noQuestionnaire = { questions: [], review_threshold: STANDARD_FLOW.questionnaire.review_threshold };

export const FLOW_TEMPLATES = {
  /** The demo flow: every step (consent, applicant details, questionnaire, document, selfie). */
  standard: STANDARD_FLOW,
  /** A document and a selfie with two head turns, nothing typed by the person: the common remote onboarding. */
  document_and_selfie: {
    ...STANDARD_FLOW,
    steps: ['consent', 'document', 'face'],
    applicant: { fields: [] },
    questionnaire: noQuestionnaire,
  },
  /** The document alone (no selfie, so no face match nor liveness): a lower assurance, e.g. an age check. */
  document_only: {
    ...STANDARD_FLOW,
    steps: ['consent', 'document'],
    applicant: { fields: [] },
    questionnaire: noQuestionnaire,
    liveness: { challenges: [] },
  },
  /**
   * Enhanced due diligence: every step, all four head-pose challenges, live capture only, address
   * and nationality asked, two operators must agree, one retake, reviews due within 8 hours; a
   * suspected presentation attack is never answered with a retake alone (an operator sees a broken
   * challenge sequence, a document on a screen or a copy), and the document's portrait held to the
   * camera is refused.
   */
  enhanced_due_diligence: {
    ...STANDARD_FLOW,
    applicant: {
      fields: [...STANDARD_FLOW.applicant.fields, { name: 'nationality', required: true }, { name: 'address', required: true }],
    },
    liveness: { challenges: ['turn_left', 'turn_right', 'look_up', 'look_down'] },
    decision: {
      on_attention: 'review',
      max_resubmissions: 1,
      review_due_hours: 8,
      presentation_attacks: { challenge_not_continuous: 'review' },
    },
    double_validation: true,
    capture: { allow_file_upload: false },
  },
} as const satisfies Record<string, FlowDefinition>;

export type FlowTemplateName = keyof typeof FLOW_TEMPLATES;
export const FLOW_TEMPLATE_NAMES = Object.keys(FLOW_TEMPLATES) as FlowTemplateName[];
