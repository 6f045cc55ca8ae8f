import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { ErrorNotice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { useSession } from '../../session-context.tsx';
import { DefinitionEditor } from './definition-editor.tsx';
import { useDefinitionDraft } from './definition-draft.ts';
import { DryRunCases, DRY_RUN_CASES } from './dry-run-cases.tsx';
import { DryRunResult } from './dry-run-result.tsx';
import { canManageFlows, oneClick, type FlowDefinition } from './flow-model.ts';
import { flowQuery, flowsQuery } from './flow-queries.ts';
import { FLOW_TEMPLATE_NAMES, templateDefinition, validFlowName, type FlowTemplateName } from './flow-templates.ts';

type Start = { kind: 'template'; name: FlowTemplateName } | { kind: 'copy'; name: string };

/**
 * A new flow (administrators): a name, a start (one of the templates, or a copy of another flow's
 * active version, else its latest), the definition edited in the form and its JSON, a dry run on
 * the past cases of an existing flow, and its first version saved as a draft. The flow's screen
 * then dry-runs it again and activates it, with a confirmation.
 */
export function NewFlowScreen() {
  const { t } = useI18n();
  const role = useSession().operator.role;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const flows = useQuery(flowsQuery());
  const [name, setName] = useState('');
  const [start, setStart] = useState<Start>({ kind: 'template', name: 'standard' });
  const draft = useDefinitionDraft(templateDefinition('standard'));
  const [trialFlow, setTrialFlow] = useState<string | null>(null);
  const [cases, setCases] = useState(DRY_RUN_CASES.default);
  const [copyError, setCopyError] = useState<unknown>(null);

  const existing = flows.data?.data ?? [];
  const taken = existing.some((f) => f.name === name);
  const nameProblem = name === '' ? null : !validFlowName(name) ? t('flows.new.name_invalid') : taken ? t('flows.new.name_taken') : null;
  // The dry run decides again the past cases of an existing flow: the copied one, else the first.
  const trial = trialFlow ?? (start.kind === 'copy' ? start.name : existing[0]?.name) ?? null;

  const choose = async (next: Start) => {
    setStart(next);
    if (next.kind === 'template') return draft.reset(templateDefinition(next.name));
    setCopyError(null);
    try {
      const flow = await queryClient.fetchQuery(flowQuery(next.name));
      const version = flow.versions.find((v) => v.status === 'active') ?? flow.versions[0];
      draft.reset(structuredClone(version.definition));
    } catch (err) {
      setCopyError(err);
    }
  };

  const dryRun = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/dry-run', { params: { path: { name: trial! } }, body: { definition: draft.def as FlowDefinition, cases } })),
    onError: draft.refused,
  });
  const save = useMutation({
    mutationFn: () => ok(api.POST('/v1/flows/{name}/versions', { params: { path: { name }, header: oneClick() }, body: { definition: draft.def as FlowDefinition } })),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['flows'] });
      void navigate({ to: '/flows/$name', params: { name }, search: { version: created.version } });
    },
    onError: draft.refused,
  });

  if (!canManageFlows(role)) return <Navigate to="/flows" replace />;
  const startValue = `${start.kind}:${start.name}`;
  return (
    <>
      <PageTitle text={t('flows.new.title')}>{t('flows.new.title')}</PageTitle>
      <p>
        <Link to="/flows">{t('flows.back')}</Link>
      </p>
      <section className="panel" aria-labelledby="new-flow-start">
        <h2 id="new-flow-start">{t('flows.new.start_title')}</h2>
        <div className="toolbar flow-actions">
          <label className="field">
            <span>{t('flows.new.name')}</span>
            <input
              name="flow_name"
              value={name}
              maxLength={64}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={nameProblem !== null}
              aria-describedby={nameProblem ? 'flow-name-help flow-name-error' : 'flow-name-help'}
              onInput={(e) => setName((e.target as HTMLInputElement).value.trim())}
            />
          </label>
          <label className="field">
            <span>{t('flows.new.start')}</span>
            <select
              name="flow_start"
              value={startValue}
              onChange={(e) => {
                const [kind, value] = (e.target as HTMLSelectElement).value.split(':') as ['template' | 'copy', string];
                void choose(kind === 'template' ? { kind, name: value as FlowTemplateName } : { kind, name: value });
              }}
            >
              <optgroup label={t('flows.new.templates')}>
                {FLOW_TEMPLATE_NAMES.map((n) => (
                  <option key={n} value={`template:${n}`}>
                    {t(`flows.template.${n}` as MessageKey)}
                  </option>
                ))}
              </optgroup>
              {existing.length ? (
                <optgroup label={t('flows.new.copies')}>
                  {existing.map((f) => (
                    <option key={f.name} value={`copy:${f.name}`}>
                      {t('flows.new.copy_of', { name: f.name })}
                    </option>
                  ))}
                </optgroup>
              ) : null}
            </select>
          </label>
        </div>
        <p id="flow-name-help" className="muted small">
          {t('flows.new.name_help')}
        </p>
        {nameProblem ? (
          <p id="flow-name-error" className="field-error">
            {nameProblem}{' '}
            {taken ? (
              <Link to="/flows/$name" params={{ name }}>
                {t('flows.new.open_existing', { name })}
              </Link>
            ) : null}
          </p>
        ) : null}
        {copyError ? <ErrorNotice error={copyError} /> : null}
        <p className="muted">{start.kind === 'template' ? t(`flows.template.${start.name}.help` as MessageKey) : t('flows.new.copy_help', { name: start.name })}</p>
      </section>

      <section className="panel" aria-labelledby="new-flow-definition">
        <h2 id="new-flow-definition">{t('flows.new.definition')}</h2>
        <DefinitionEditor draft={draft} />
        <div className="toolbar flow-actions">
          {existing.length ? (
            <>
              <label className="field">
                <span>{t('flows.new.trial_flow')}</span>
                <select name="trial_flow" value={trial ?? ''} onChange={(e) => setTrialFlow((e.target as HTMLSelectElement).value)}>
                  {existing.map((f) => (
                    <option key={f.name} value={f.name}>
                      {f.name}
                    </option>
                  ))}
                </select>
              </label>
              <DryRunCases value={cases} onChange={setCases} />
              <button type="button" className="button" disabled={!draft.usable || trial === null || dryRun.isPending} onClick={() => dryRun.mutate()}>
                {t('flows.dry.run')}
              </button>
            </>
          ) : null}
          <button type="button" className="button button-primary" disabled={!draft.usable || name === '' || nameProblem !== null || save.isPending} onClick={() => save.mutate()}>
            {t('flows.new.save')}
          </button>
        </div>
        <p className="muted small">{t('flows.new.save_help')}</p>
        {flows.isError ? <ErrorNotice error={flows.error} onRetry={() => void flows.refetch()} /> : null}
        {dryRun.isError ? <ErrorNotice error={dryRun.error} /> : null}
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        {dryRun.data ? <DryRunResult result={dryRun.data} /> : null}
      </section>
    </>
  );
}
