import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, ok } from '../../api/client.ts';
import type { Check, DecisionRecorded, ReviewTask } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { useShortcuts } from '../../components/shortcuts.ts';
import {
  JUSTIFICATION_MIN_LENGTH,
  REJECT_REASONS,
  RESUBMISSION_STEPS,
  RESUBMIT_REASONS,
  overriddenChecks,
  type CheckType,
  type ReasonCode,
} from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { decisionReasonWords } from '../../i18n/reasons.ts';
import { OverrideQuestion } from './override-question.tsx';
import { ReasonSelect } from './reason-select.tsx';
import type { TaskLock } from './use-task-lock.ts';

/** What the case screen says once a decision is recorded. */
export function DecisionRecordedNotice({ result }: { result: DecisionRecorded }) {
  const { t } = useI18n();
  return (
    <Notice kind="success">
      {result.concluded ? t('decision.recorded.concluded', { state: t(`state.${result.case.state}` as MessageKey) }) : t('decision.recorded.pending')}
    </Notice>
  );
}

type Outcome = 'approve' | 'reject' | 'resubmit';
type Step = (typeof RESUBMISSION_STEPS)[number];

/**
 * The decision panel: approve, reject with a reason from the closed list, or ask to resubmit
 * chosen steps; each confirmed in a dialog that says what it will do. Approving against checks
 * that failed or need attention (an override) lists them in the confirmation and asks why; the
 * service refuses it otherwise. Shortcuts a, r, s (not while typing). Under double validation
 * the service hides the first operator's outcome; this panel never shows it either.
 */
export function DecisionPanel({
  task,
  checks,
  lock,
  mayDecide,
  onDecided,
}: {
  task: ReviewTask;
  checks: Check[];
  lock: TaskLock;
  mayDecide: boolean;
  onDecided(d: DecisionRecorded): void;
}) {
  const { t, locale } = useI18n();
  const queryClient = useQueryClient();
  const [rejectReason, setRejectReason] = useState<ReasonCode | ''>('');
  const [resubmitReason, setResubmitReason] = useState<ReasonCode | ''>('');
  const [steps, setSteps] = useState<Step[]>([]);
  const [comment, setComment] = useState('');
  const [justification, setJustification] = useState('');
  const overridden = overriddenChecks('approve', checks);
  const justified = justification.trim().length >= JUSTIFICATION_MIN_LENGTH;
  const [confirming, setConfirming] = useState<Outcome | null>(null);
  const [problem, setProblem] = useState<MessageKey | null>(null);
  const rejectRef = useRef<HTMLSelectElement>(null);
  const stepsRef = useRef<HTMLInputElement>(null);

  const decide = useMutation({
    mutationFn: (outcome: Outcome) =>
      ok(
        api.POST('/v1/reviews/{task_id}/decision', {
          params: { path: { task_id: task.id } },
          body: {
            outcome,
            ...(outcome === 'reject' && rejectReason ? { reason_code: rejectReason } : {}),
            ...(outcome === 'resubmit' ? { steps, ...(resubmitReason ? { reason_code: resubmitReason } : {}) } : {}),
            ...(comment.trim() ? { comment: comment.trim() } : {}),
            ...(outcome === 'approve' && overridden.length > 0 ? { justification: justification.trim() } : {}),
          },
        }),
      ),
    // Said by the case screen: once the task is closed this panel is gone.
    onSuccess: onDecided,
    onSettled: () => {
      setConfirming(null);
      void queryClient.invalidateQueries({ queryKey: ['review-case', task.id] });
      void queryClient.invalidateQueries({ queryKey: ['reviews'] });
      void queryClient.invalidateQueries({ queryKey: ['reviews-summary'] });
    },
    onError: lock.noteError,
  });

  const enabled = mayDecide && lock.state === 'held' && !decide.isPending;
  const ask = (outcome: Outcome) => {
    if (!enabled) return;
    setProblem(null);
    if (outcome === 'reject' && !rejectReason) {
      setProblem('decision.needReason');
      rejectRef.current?.focus();
      return;
    }
    if (outcome === 'resubmit' && steps.length === 0) {
      setProblem('decision.needSteps');
      stepsRef.current?.focus();
      return;
    }
    setConfirming(outcome);
  };
  useShortcuts({ a: () => ask('approve'), r: () => ask('reject'), s: () => ask('resubmit') });

  const reasonWords = (code: ReasonCode | '') => (code ? decisionReasonWords(code, locale) : '');
  const confirmation = {
    approve: { title: t('decision.confirm.approve'), label: t('decision.approve'), destructive: false },
    reject: { title: t('decision.confirm.reject'), label: t('decision.reject'), destructive: true },
    resubmit: { title: t('decision.confirm.resubmit'), label: t('decision.resubmit'), destructive: false },
  }[confirming ?? 'approve'];
  const overriding = confirming === 'approve' && overridden.length > 0;

  return (
    <section className={lock.state === 'held' ? 'panel panel-decision decision-ready' : 'panel panel-decision'} aria-labelledby="decision-title">
      <h2 id="decision-title">{t('decision.title')}</h2>
      {lock.state !== 'held' ? <p className="muted">{t('decision.needLock')}</p> : null}
      <fieldset disabled={!enabled} className="stack">
        <ReasonSelect name="reject_reason" reasons={REJECT_REASONS} value={rejectReason} onChange={setRejectReason} selectRef={rejectRef} />
        <fieldset className="steps">
          <legend>{t('decision.steps')}</legend>
          {RESUBMISSION_STEPS.map((s, i) => (
            <label key={s} className="check-label">
              <input
                ref={i === 0 ? stepsRef : undefined}
                type="checkbox"
                name="steps"
                value={s}
                checked={steps.includes(s)}
                onChange={(e) => setSteps(e.target.checked ? [...steps, s] : steps.filter((x) => x !== s))}
              />
              {t(`decision.step.${s}` as MessageKey)}
            </label>
          ))}
          <ReasonSelect name="resubmit_reason" reasons={RESUBMIT_REASONS} value={resubmitReason} onChange={setResubmitReason} optional />
        </fieldset>
        <label className="field">
          <span>{t('decision.comment')}</span>
          <textarea name="comment" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} rows={2} />
        </label>
        <div className="decision-buttons">
          <button type="button" className="button button-approve" onClick={() => ask('approve')} aria-keyshortcuts="a">
            {t('decision.approve')} <kbd>a</kbd>
          </button>
          <button type="button" className="button button-reject" onClick={() => ask('reject')} aria-keyshortcuts="r">
            {t('decision.reject')} <kbd>r</kbd>
          </button>
          <button type="button" className="button" onClick={() => ask('resubmit')} aria-keyshortcuts="s">
            {t('decision.resubmit')} <kbd>s</kbd>
          </button>
        </div>
      </fieldset>
      {problem ? (
        <p className="field-error" role="alert">
          {t(problem)}
        </p>
      ) : null}
      {decide.isError ? <ErrorNotice error={decide.error} /> : null}
      <ConfirmDialog
        open={confirming !== null}
        title={confirmation.title}
        confirmLabel={confirmation.label}
        destructive={confirmation.destructive}
        confirmDisabled={overriding && !justified}
        busy={decide.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirming && decide.mutate(confirming)}
      >
        {confirming === 'reject' ? <p>{t('decision.confirm.rejectReason', { reason: reasonWords(rejectReason) })}</p> : null}
        {confirming === 'resubmit' ? (
          <>
            <p>{t('decision.confirm.resubmitSteps', { steps: steps.map((x) => t(`decision.step.${x}` as MessageKey)).join(', ') })}</p>
            {resubmitReason ? <p>{t('decision.confirm.resubmitReason', { reason: reasonWords(resubmitReason) })}</p> : null}
          </>
        ) : null}
        {overriding ? <OverrideQuestion checks={checks.filter((c) => overridden.includes(c.type as CheckType))} value={justification} onChange={setJustification} /> : null}
        {confirming && comment.trim() ? <p className="muted small">{t('decision.confirm.comment')}</p> : null}
        {confirming && task.double_validation && task.status === 'open' ? <p className="muted small">{t('decision.confirm.doubleValidation')}</p> : null}
      </ConfirmDialog>
    </section>
  );
}
