import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useActionOutcome } from '../../action-outcome.tsx';
import { api, ok } from '../../api/client.ts';
import type { Check, RevisionRecorded } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { JUSTIFICATION_MIN_LENGTH, REJECT_REASONS, overriddenChecks, type CheckType, type ReasonCode } from '../../domain.ts';
import { OverrideQuestion } from './override-question.tsx';
import { ReasonSelect } from './reason-select.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { decisionReasonWords } from '../../i18n/reasons.ts';

/**
 * A supervisor revises the decision of a decided case. The service asks for a fresh
 * re-authentication: the console server then sends the page to the provider and replays this
 * request on the way back (the shell says how it went).
 */
export function RevisionPanel({ taskId, caseState, checks }: { taskId: string; caseState: 'approved' | 'rejected'; checks: Check[] }) {
  const { t, locale } = useI18n();
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<'approve' | 'reject'>(caseState === 'approved' ? 'reject' : 'approve');
  const [reason, setReason] = useState<ReasonCode | ''>('');
  const [comment, setComment] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [justification, setJustification] = useState('');
  // Revising to approved against failed checks is an override, justified like a decision's.
  const overridden = overriddenChecks(outcome, checks);
  const revise = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v1/reviews/{task_id}/revision', {
          params: { path: { task_id: taskId } },
          body: {
            outcome,
            ...(outcome === 'reject' && reason ? { reason_code: reason } : {}),
            ...(comment.trim() ? { comment: comment.trim() } : {}),
            ...(overridden.length > 0 ? { justification: justification.trim() } : {}),
          },
        }),
      ),
    onSettled: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: ['review-case', taskId] });
    },
  });
  const outcomeWord = t(`revision.${outcome}` as MessageKey);
  // The revision asked before a re-authentication, replayed by the console server on the way back.
  const replayed = useActionOutcome()?.result;
  const replayedRevision = replayed && replayed.status < 300 ? (replayed.body as RevisionRecorded | null) : null;
  const done = revise.data ?? (replayedRevision?.object === 'revision' && replayedRevision.task_id === taskId ? replayedRevision : undefined);
  return (
    <section className="panel" aria-labelledby="revision-title">
      <h2 id="revision-title">{t('revision.title')}</h2>
      <p>{t('revision.intro', { state: t(`state.${caseState}` as MessageKey) })}</p>
      <fieldset disabled={revise.isPending} className="stack">
        <label className="field">
          <span>{t('decision.title')}</span>
          <select name="revision_outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as 'approve' | 'reject')}>
            <option value="approve">{t('decision.approve')}</option>
            <option value="reject">{t('decision.reject')}</option>
          </select>
        </label>
        {outcome === 'reject' ? (
          <ReasonSelect name="revision_reason" reasons={REJECT_REASONS} value={reason} onChange={setReason} />
        ) : null}
        <label className="field">
          <span>{t('decision.comment')}</span>
          <textarea name="revision_comment" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} rows={2} />
        </label>
        <button type="button" className="button" onClick={() => setConfirming(true)} disabled={outcome === 'reject' && !reason}>
          {t('revision.submit')}
        </button>
      </fieldset>
      {revise.isError ? <ErrorNotice error={revise.error} /> : null}
      {done ? <Notice kind="success">{t('revision.done', { outcome: t(`state.${done.outcome}` as MessageKey) })}</Notice> : null}
      <ConfirmDialog
        open={confirming}
        title={t('revision.confirm')}
        confirmLabel={t('revision.submit')}
        destructive={outcome === 'reject'}
        confirmDisabled={overridden.length > 0 && justification.trim().length < JUSTIFICATION_MIN_LENGTH}
        busy={revise.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => revise.mutate()}
      >
        <p>{t('revision.confirm.body', { outcome: outcomeWord })}</p>
        {outcome === 'reject' && reason ? <p>{t('decision.confirm.rejectReason', { reason: decisionReasonWords(reason, locale) })}</p> : null}
        {overridden.length > 0 ? (
          <OverrideQuestion checks={checks.filter((c) => overridden.includes(c.type as CheckType))} value={justification} onChange={setJustification} />
        ) : null}
      </ConfirmDialog>
    </section>
  );
}
