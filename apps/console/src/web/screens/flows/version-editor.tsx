import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { DryRunResult } from './dry-run-result.tsx';
import { FlowForm } from './flow-form.tsx';
import { formable, pretty, type FlowDefinition, type FlowVersion } from './flow-model.ts';

/** The Idempotency-Key of one click (the service requires it of these writes; a retried request stays one action). */
const oneClick = () => ({ 'idempotency-key': crypto.randomUUID() });

const DRY_RUN_CASES = { min: 1, max: 10_000, default: 1_000 };

/**
 * One version, open in the form and in its JSON, kept in sync both ways: the form writes the JSON;
 * JSON that parses into a complete definition redraws the form (otherwise the form waits and says
 * why). Anyone who may read flows may change the draft here and dry-run it; saving (a new version)
 * and activating are offered to administrators only, and refused to others by the service.
 */
export function VersionEditor({ name, version, canManage }: { name: string; version: FlowVersion; canManage: boolean }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [def, setDef] = useState<unknown>(version.definition);
  const [text, setText] = useState(() => pretty(version.definition));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [cases, setCases] = useState(DRY_RUN_CASES.default);
  const [confirming, setConfirming] = useState(false);
  const edited = text !== pretty(version.definition);

  const fromForm = (next: FlowDefinition) => {
    setDef(next);
    setText(pretty(next));
    setJsonError(null);
  };
  const fromJson = (value: string) => {
    setText(value);
    try {
      setDef(JSON.parse(value));
      setJsonError(null);
    } catch (err) {
      setJsonError((err as Error).message);
    }
  };

  const dryRun = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/dry-run', { params: { path: { name } }, body: { definition: def as FlowDefinition, cases } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['flows'] });
  const save = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/versions', { params: { path: { name }, header: oneClick() }, body: { definition: def as FlowDefinition } })),
    onSuccess: async (created) => {
      await refresh();
      void navigate({ to: '/flows/$name', params: { name }, search: { version: created.version } });
    },
  });
  const activate = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/versions/{version}/activate', { params: { path: { name, version: version.version }, header: oneClick() } })),
    onSuccess: async () => {
      setConfirming(false);
      await refresh();
    },
    onError: () => setConfirming(false),
  });

  const usable = jsonError === null;
  return (
    <section className="panel" aria-labelledby="version-title">
      <h2 id="version-title">
        {t('flows.version', { version: version.version })} <span className={`tag flow-status-${version.status}`}>{t(`flows.status.${version.status}`)}</span>
      </h2>
      {edited ? <Notice kind="info">{t('flows.edited')}</Notice> : null}
      <div className="flow-editor">
        <div>
          <h3>{t('flows.form.title')}</h3>
          {formable(def) ? <FlowForm def={def} onChange={fromForm} /> : <p className="notice notice-warning">{t('flows.form.incomplete')}</p>}
        </div>
        <div>
          <label className="field">
            <span>{t('flows.json')}</span>
            <textarea className="flow-json mono" spellCheck={false} value={text} rows={30} onInput={(e) => fromJson((e.target as HTMLTextAreaElement).value)} aria-invalid={jsonError !== null} aria-describedby={jsonError ? 'flow-json-error' : undefined} />
          </label>
          {jsonError ? (
            <p id="flow-json-error" className="field-error">
              {t('flows.json_invalid', { message: jsonError })}
            </p>
          ) : null}
        </div>
      </div>

      <div className="toolbar flow-actions">
        <label className="field">
          <span>{t('flows.dry.cases')}</span>
          <input
            type="number"
            className="input-short"
            min={DRY_RUN_CASES.min}
            max={DRY_RUN_CASES.max}
            value={cases}
            onChange={(e) => {
              const v = (e.target as HTMLInputElement).valueAsNumber;
              if (Number.isInteger(v)) setCases(Math.min(DRY_RUN_CASES.max, Math.max(DRY_RUN_CASES.min, v)));
            }}
          />
        </label>
        <button type="button" className="button" disabled={!usable || dryRun.isPending} onClick={() => dryRun.mutate()}>
          {t('flows.dry.run')}
        </button>
        {canManage ? (
          <>
            <button type="button" className="button button-primary" disabled={!usable || !edited || save.isPending} onClick={() => save.mutate()}>
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
