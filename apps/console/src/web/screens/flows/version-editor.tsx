import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { DefinitionEditor } from './definition-editor.tsx';
import { useDefinitionDraft } from './definition-draft.ts';
import { DryRunCases, DRY_RUN_CASES } from './dry-run-cases.tsx';
import { DryRunResult } from './dry-run-result.tsx';
import { oneClick, pretty, type FlowDefinition, type FlowVersion } from './flow-model.ts';

/**
 * One version, open in the form and in its JSON (useDefinitionDraft), with what the service would
 * refuse shown at its field before anything is sent. Anyone who may read flows may change the
 * draft here and dry-run it; saving (a new version) and activating are offered to administrators
 * only, and refused to others by the service.
 */
export function VersionEditor({ name, version, canManage }: { name: string; version: FlowVersion; canManage: boolean }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const draft = useDefinitionDraft(version.definition);
  const [cases, setCases] = useState(DRY_RUN_CASES.default);
  const [confirming, setConfirming] = useState(false);
  const edited = draft.text !== pretty(version.definition);

  const dryRun = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/dry-run', { params: { path: { name } }, body: { definition: draft.def as FlowDefinition, cases } })),
    onError: draft.refused,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['flows'] });
  const save = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/versions', { params: { path: { name }, header: oneClick() }, body: { definition: draft.def as FlowDefinition } })),
    onSuccess: async (created) => {
      await refresh();
      void navigate({ to: '/flows/$name', params: { name }, search: { version: created.version } });
    },
    onError: draft.refused,
  });
  const activate = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/versions/{version}/activate', { params: { path: { name, version: version.version }, header: oneClick() } })),
    onSuccess: async () => {
      setConfirming(false);
      await refresh();
    },
    onError: () => setConfirming(false),
  });

  return (
    <section className="panel" aria-labelledby="version-title">
      <h2 id="version-title">
        {t('flows.version', { version: version.version })} <span className={`tag flow-status-${version.status}`}>{t(`flows.status.${version.status}`)}</span>
      </h2>
      {edited ? <Notice kind="info">{t('flows.edited')}</Notice> : null}
      <DefinitionEditor draft={draft} />

      <div className="toolbar flow-actions">
        <DryRunCases value={cases} onChange={setCases} />
        <button type="button" className="button" disabled={!draft.usable || dryRun.isPending} onClick={() => dryRun.mutate()}>
          {t('flows.dry.run')}
        </button>
        {canManage ? (
          <>
            <button type="button" className="button button-primary" disabled={!draft.usable || !edited || save.isPending} onClick={() => save.mutate()}>
              {t('flows.save')}
            </button>
            {version.status !== 'active' ? (
              <button type="button" className="button" disabled={edited || activate.isPending} onClick={() => setConfirming(true)}>
                {t('flows.activate', { version: version.version })}
              </button>
            ) : null}
          </>
        ) : null}
      </div>
      {canManage && edited && version.status !== 'active' ? <p className="muted small">{t('flows.activate_saved_only')}</p> : null}
      {dryRun.isError ? <ErrorNotice error={dryRun.error} /> : null}
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {activate.isError ? <ErrorNotice error={activate.error} /> : null}
      {activate.isSuccess ? <Notice kind="success">{t('flows.activated', { version: version.version })}</Notice> : null}
      {dryRun.data ? <DryRunResult result={dryRun.data} /> : null}
      <ConfirmDialog
        open={confirming}
        title={t('flows.activate_confirm', { name, version: version.version })}
        confirmLabel={t('confirm.activate')}
        busy={activate.isPending}
        onConfirm={() => activate.mutate()}
        onCancel={() => setConfirming(false)}
      />
    </section>
  );
}
