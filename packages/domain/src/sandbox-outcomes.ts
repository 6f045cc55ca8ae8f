import { CHECK_REASONS, type CheckReport } from './check-reasons.ts';
import { isAttackReason, type AttackReason } from './presentation-attacks.ts';
import { REASON_CODES, RESUBMISSION_STEPS, type ReasonCode, type ResubmissionStepName } from './review.ts';

/**
 * Sandbox test values (docs/sandbox.md): in the sandbox only, a given name `Sandbox Approve`,
 * `Sandbox Reject [reason]`, `Sandbox Review` or `Sandbox Resubmit [document] [face] [reason]`
 * (case, spaces, hyphens and underscores aside) forces the decision; the checks still run and
 * store their reports (with `sandbox_forced`). `Sandbox Attack <reason>` forces no outcome: it
 * raises one presentation-attack reason on its check, failed, and the flow's own policy decides
 * (decision.presentation_attacks), so an integrator sees what their flow does with it. In
 * production these are ordinary names.
 */
export type SandboxForce =
  | { outcome: 'approve' }
  | { outcome: 'reject'; reasonCode: ReasonCode }
  | { outcome: 'review' }
  | { outcome: 'resubmit'; steps: ResubmissionStepName[]; reasonCode: ReasonCode | null };
/** A sandbox value that raises a reason instead of forcing an outcome. */
export interface SandboxAttack {
  outcome: 'attack';
  reason: AttackReason;
}

const SANDBOX_PREFIX = 'SANDBOX';
const SANDBOX_DEFAULT_REJECT_REASON: ReasonCode = 'suspected_fraud';

/** The forced outcome a given name asks for, or null when it is not a (well-formed) test value. */
export function parseSandboxValue(value: unknown): SandboxForce | SandboxAttack | null {
  if (typeof value !== 'string') return null;
  // Words split on spaces and hyphens; reason codes keep their underscores.
  const words = value.trim().toLowerCase().split(/[\s-]+/).filter(Boolean);
  if (words.length < 2 || words[0] !== SANDBOX_PREFIX.toLowerCase()) return null;
  const [, verb, ...rest] = words;
  const isReason = (w: string): w is ReasonCode => w in REASON_CODES;
  switch (verb) {
    case 'approve':
      return rest.length === 0 ? { outcome: 'approve' } : null;
    case 'review':
      return rest.length === 0 ? { outcome: 'review' } : null;
    case 'reject': {
      if (rest.length === 0) return { outcome: 'reject', reasonCode: SANDBOX_DEFAULT_REJECT_REASON };
      const [reason] = rest;
      if (rest.length !== 1 || !isReason(reason) || REASON_CODES[reason].applies !== 'reject') return null;
      return { outcome: 'reject', reasonCode: reason };
    }
    case 'resubmit': {
      const steps = new Set<ResubmissionStepName>();
      let reasonCode: ReasonCode | null = null;
      for (const w of rest) {
        if ((RESUBMISSION_STEPS as readonly string[]).includes(w)) steps.add(w as ResubmissionStepName);
        else if (isReason(w) && REASON_CODES[w].applies === 'resubmit' && reasonCode === null) reasonCode = w;
        else return null;
      }
      const chosen = steps.size ? RESUBMISSION_STEPS.filter((s) => steps.has(s)) : [...RESUBMISSION_STEPS];
      return { outcome: 'resubmit', steps: chosen, reasonCode };
    }
    case 'attack': {
      const [reason] = rest;
      return rest.length === 1 && isAttackReason(reason) ? { outcome: 'attack', reason } : null;
    }
    default:
      return null;
  }
}

/**
 * The reports with a forced attack reason raised on its own check, failed (a report of that check
 * is added when the flow ran none, e.g. no liveness challenge). The other reports are untouched.
 */
export function withSandboxAttack(reports: readonly CheckReport[], reason: AttackReason): CheckReport[] {
  const type = CHECK_REASONS[reason].check;
  const out = reports.map((r) => (r.type === type ? { ...r, status: 'failed' as const, reasons: [...new Set([...r.reasons, reason])] } : r));
  if (!out.some((r) => r.type === type)) out.push({ type, status: 'failed', reasons: [reason], measures: {} });
  return out;
}

/**
 * The forced outcome of a case, if any: only in the sandbox, from the declared given names first,
 * then the entered ones. Production cases are never forced, whatever their names.
 */
export function sandboxForce(
  environment: 'sandbox' | 'prod',
  identities: { declared?: Record<string, unknown> | null; entered?: Record<string, unknown> | null },
): SandboxForce | SandboxAttack | null {
  if (environment !== 'sandbox') return null;
  return parseSandboxValue(identities.declared?.given_names) ?? parseSandboxValue(identities.entered?.given_names);
}
