import type { CheckReport } from './check-reasons.ts';
import { decideCase, type PolicyDecision } from './decision-policy.ts';
import { regradeFaceMatch } from './face-grading.ts';
import type { FlowDefinition } from './flow.ts';

/**
 * The dry run of a draft flow: past cases' stored check reports decided again under the draft,
 * beside what their own version decided (pure; no image, no personal data). The draft can change
 * the decision policy and the face thresholds; what the engine decided from images keeps its verdict.
 */

export const DRY_RUN_OUTCOMES = ['approved', 'rejected', 'in_review', 'resubmission_requested'] as const;
type DryRunOutcome = (typeof DRY_RUN_OUTCOMES)[number];
export const DRY_RUN_MAX_CASES = 10_000;
export const DRY_RUN_DEFAULT_CASES = 1_000;
/** Case ids given per changed cell: enough to open a few and see why, not a list to page through. */
export const DRY_RUN_SAMPLE_IDS = 5;

export interface DryRunCase {
  id: string;
  /** The flow version the case ran under (its row id), whose definition is in `versions`. */
  flowId: string;
  reports: readonly CheckReport[];
  /** Resubmissions asked before these reports (the journey round minus one). */
  resubmissions: number;
}

interface DryRunCell {
  from: DryRunOutcome;
  to: DryRunOutcome;
  count: number;
  /** Up to DRY_RUN_SAMPLE_IDS case ids, newest first; empty where nothing changes. */
  caseIds: string[];
}

export interface DryRunResult {
  /** Cases decided again. */
  evaluated: number;
  /** Cases left out: an outcome forced by a sandbox test value, or a version no longer readable. */
  skipped: number;
  /** Cases whose outcome would change. */
  changed: number;
  /** Every non-empty cell of the from → to matrix, the unchanged diagonal included. */
  cells: DryRunCell[];
}

/** A fixed instant: the due date of a review is the only use of `now`, and it is not compared. */
const EPOCH = new Date(0);

const sameFaceThresholds = (a: FlowDefinition, b: FlowDefinition) =>
  a.checks.face_match_max_distance === b.checks.face_match_max_distance && a.checks.face_review_max_distance === b.checks.face_review_max_distance;

/**
 * The stored reports are the verdicts of the case's own version: "from" takes them as they are, and
 * so does "to" while the draft keeps that version's face thresholds. Only a change of thresholds
 * grades the stored distance again (stored to three decimals: a distance within 0.0005 of a new
 * threshold may fall on either side of it).
 */
function decide(reports: readonly CheckReport[], flow: FlowDefinition, resubmissions: number, regrade: boolean): PolicyDecision['outcome'] {
  const graded = regrade ? reports.map((r) => regradeFaceMatch(r, flow.checks)) : reports;
  return decideCase({ reports: graded, flow, resubmissions, now: EPOCH }).outcome;
}

/** `cases` newest first; `versions` maps each flow version id met in them to its definition. */
export function dryRunFlow(draft: FlowDefinition, cases: readonly DryRunCase[], versions: ReadonlyMap<string, FlowDefinition>): DryRunResult {
  const cells = new Map<string, DryRunCell>();
  let evaluated = 0;
  let skipped = 0;
  let changed = 0;
  for (const c of cases) {
    const own = versions.get(c.flowId);
    // A sandbox test value forced the outcome: no policy decided it, so none can be compared.
    if (!own || c.reports.some((r) => r.reasons.includes('sandbox_forced'))) {
      skipped++;
      continue;
    }
    const from = decide(c.reports, own, c.resubmissions, false);
    const to = decide(c.reports, draft, c.resubmissions, !sameFaceThresholds(own, draft));
    evaluated++;
    const key = `${from}>${to}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { from, to, count: 0, caseIds: [] }));
    cell.count++;
    if (from !== to) {
      changed++;
      if (cell.caseIds.length < DRY_RUN_SAMPLE_IDS) cell.caseIds.push(c.id);
    }
  }
  const order = (o: DryRunOutcome) => DRY_RUN_OUTCOMES.indexOf(o);
  const sorted = [...cells.values()].sort((a, b) => order(a.from) - order(b.from) || order(a.to) - order(b.to));
  return { evaluated, skipped, changed, cells: sorted };
}
