import type { ReactNode } from 'react';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { checkReasonWords } from '../../i18n/reasons.ts';
import { ATTACK_ACTIONS, ATTACK_REASONS, PRESENTATION_ATTACKS, type AttackAction, type AttackReason } from '../../domain.ts';
import { CHALLENGES, DOCUMENT_TYPES, STEPS, changed, toggled, type FlowDefinition } from './flow-model.ts';
import { problemsAt, problemsUnder, type FlowProblem } from './flow-problems.ts';

interface Props {
  def: FlowDefinition;
  /** What the service would refuse, shown beside the field (or the group) it concerns. */
  problems: readonly FlowProblem[];
  onChange(def: FlowDefinition): void;
}

/** A field's problems under it, tied to the input by aria-describedby (the id is the JSON pointer's). */
function Problems({ id, problems }: { id: string; problems: readonly FlowProblem[] }) {
  if (!problems.length) return null;
  return (
    <span id={id} className="field-error small">
      {problems.map((p) => p.message).join(' ')}
    </span>
  );
}
const problemId = (path: string) => `problem${path.replace(/[^a-z0-9_]+/gi, '-')}`;

/** A number input bound to one setting; an empty or non-numeric entry leaves the setting as it was. */
function NumberField({
  label,
  value,
  onChange,
  min,
  max,
  step,
  name,
  path,
  problems,
}: {
  label: string;
  value: number;
  onChange(v: number): void;
  min: number;
  max: number;
  step?: number;
  name: string;
  /** The JSON pointer of the setting, where the service places its problems. */
  path: string;
  problems: readonly FlowProblem[];
}) {
  const mine = problemsAt(problems, path);
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type="number"
        name={name}
        aria-invalid={mine.length > 0}
        aria-describedby={mine.length ? problemId(path) : undefined}
        className="input-short"
        value={value}
        min={min}
        max={max}
        step={step ?? 1}
        onChange={(e) => {
          const v = (e.target as HTMLInputElement).valueAsNumber;
          if (Number.isFinite(v)) onChange(v);
        }}
      />
      <Problems id={problemId(path)} problems={mine} />
    </label>
  );
}

function Check({ label, checked, onChange, name, describedBy }: { label: string; checked: boolean; onChange(on: boolean): void; name?: string; describedBy?: string }) {
  return (
    <label className="check-label">
      <input type="checkbox" name={name} aria-describedby={describedBy} checked={checked} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
      {label}
    </label>
  );
}

/** A fieldset of the form; `inline` lays its fields side by side where there is room. */
function Group({ legend, children, inline, problems = [] }: { legend: string; children: ReactNode; inline?: boolean; problems?: readonly FlowProblem[] }) {
  return (
    <fieldset className={inline ? 'steps flow-inline' : 'steps'}>
      <legend>{legend}</legend>
      {children}
      {problems.length ? <p className="field-error small flow-group-problems">{problems.map((p) => p.message).join(' ')}</p> : null}
    </fieldset>
  );
}

/**
 * What the flow does with each presentation-attack reason: one select per reason, named in plain
 * words, its default said under it. Choosing the default removes the reason from the definition, so the
 * flow keeps following the service's default (docs/flows.md#presentation-attacks).
 */
function AttackSettings({ def, set, problems }: { def: FlowDefinition; set(change: (d: FlowDefinition) => void): void; problems: readonly FlowProblem[] }) {
  const { t, locale } = useI18n();
  const chosen = def.decision.presentation_attacks ?? {};
  const words = (reason: AttackReason, action: AttackAction) =>
    action === 'retake' ? t(`flows.form.attack.retake.${PRESENTATION_ATTACKS[reason].step}` as MessageKey) : t(`flows.form.attack.${action}` as MessageKey);
  const choose = (reason: AttackReason, action: AttackAction) =>
    set((d) => {
      const next: Partial<Record<AttackReason, AttackAction>> = { ...(d.decision.presentation_attacks ?? {}) };
      if (action === PRESENTATION_ATTACKS[reason].default) delete next[reason];
      else next[reason] = action;
      if (Object.keys(next).length) d.decision.presentation_attacks = next;
      else delete d.decision.presentation_attacks;
    });
  return (
    <Group legend={t('flows.form.attacks')} problems={problems}>
      <p className="small muted">{t('flows.form.attacks_help')}</p>
      <div className="flow-attacks">
        {ATTACK_REASONS.map((reason) => (
          <label key={reason} className="field">
            <span>{checkReasonWords(reason, locale)}</span>
            <select
              name={`attack_${reason}`}
              aria-describedby={`attack-default-${reason}`}
              value={chosen[reason] ?? PRESENTATION_ATTACKS[reason].default}
              onChange={(e) => choose(reason, (e.target as HTMLSelectElement).value as AttackAction)}
            >
              {ATTACK_ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {words(reason, action)}
                </option>
              ))}
            </select>
            <span id={`attack-default-${reason}`} className="small muted">
              {t('flows.form.attack.default', { action: words(reason, PRESENTATION_ATTACKS[reason].default) })}
            </span>
          </label>
        ))}
      </div>
    </Group>
  );
}

/**
 * The common settings of a flow version as a form. Everything else of the definition (labels of
 * the questionnaire, applicant fields) is edited in the JSON beside it; both stay in sync.
 */
export function FlowForm({ def, problems, onChange }: Props) {
  const { t } = useI18n();
  const set = (change: (d: FlowDefinition) => void) => onChange(changed(def, change));
  // A group shows the problems inside it that no number field of its own shows.
  const under = (prefix: string, fields: string[] = []) => problemsUnder(problems, prefix, fields);
  const withProblems = { problems };
  return (
    <div className="flow-form">
      <Group legend={t('flows.form.steps')} problems={under('/steps')}>
        {STEPS.map((s) => (
          <Check key={s} label={t(`flows.step.${s}` as MessageKey)} checked={def.steps.includes(s)} onChange={(on) => set((d) => (d.steps = toggled(d.steps, s, on, STEPS)))} />
        ))}
      </Group>

      <Group legend={t('flows.form.documents')} problems={under('/documents', def.documents.map((_, i) => `/documents/${i}/country`))}>
        {def.documents.map((entry, i) => (
          <div key={i} className="flow-doc">
            <label className="field field-inline">
              <span>{t('flows.form.country')}</span>
              <input
                className="input-short"
                value={entry.country}
                maxLength={2}
                aria-invalid={problemsAt(problems, `/documents/${i}/country`).length > 0}
                aria-describedby={`flows-country-help ${problemId(`/documents/${i}/country`)}`}
                onChange={(e) => set((d) => (d.documents[i].country = (e.target as HTMLInputElement).value.toUpperCase()))}
              />
              <Problems id={problemId(`/documents/${i}/country`)} problems={problemsAt(problems, `/documents/${i}/country`)} />
            </label>
            <div className="flow-doc-types" role="group" aria-label={t('flows.form.types', { country: entry.country || '?' })}>
              {DOCUMENT_TYPES.map((type) => (
                <Check
                  key={type}
                  label={t(`flows.doc.${type}` as MessageKey)}
                  checked={entry.types.includes(type)}
                  onChange={(on) => set((d) => (d.documents[i].types = toggled(d.documents[i].types, type, on, DOCUMENT_TYPES)))}
                />
              ))}
            </div>
            {def.documents.length > 1 ? (
              <button type="button" className="button button-small" onClick={() => set((d) => d.documents.splice(i, 1))}>
                {t('flows.form.remove_country', { country: entry.country || '?' })}
              </button>
            ) : null}
          </div>
        ))}
        <p id="flows-country-help" className="muted small">
          {t('flows.form.country_help')}
        </p>
        <button type="button" className="button button-small" onClick={() => set((d) => d.documents.push({ country: '', types: ['passport'] }))}>
          {t('flows.form.add_country')}
        </button>
      </Group>

      <Group legend={t('flows.form.liveness')} problems={under('/liveness')}>
        {CHALLENGES.map((c) => (
          <Check
            key={c}
            label={t(`flows.challenge.${c}` as MessageKey)}
            checked={def.liveness.challenges.includes(c)}
            onChange={(on) => set((d) => (d.liveness.challenges = toggled(d.liveness.challenges, c, on, CHALLENGES)))}
          />
        ))}
        {/* Absent and false mean the same: the live sequence only. */}
        <Check
          name="allow_stills"
          label={t('flows.form.allow_stills')}
          describedBy="flows-stills-help"
          checked={def.liveness.allow_stills ?? false}
          onChange={(on) => set((d) => (d.liveness.allow_stills = on))}
        />
        <p id="flows-stills-help" className="muted small">
          {t('flows.form.allow_stills_help')}
        </p>
      </Group>

      <Group inline legend={t('flows.form.checks')} problems={under('/checks', ['/checks/face_match_max_distance', '/checks/face_review_max_distance', '/checks/min_age'])}>
        <NumberField {...withProblems} path="/checks/face_match_max_distance" name="face_match_max_distance" label={t('flows.form.face_match')} value={def.checks.face_match_max_distance} min={0} max={2} step={0.001} onChange={(v) => set((d) => (d.checks.face_match_max_distance = v))} />
        <NumberField {...withProblems} path="/checks/face_review_max_distance" name="face_review_max_distance" label={t('flows.form.face_review')} value={def.checks.face_review_max_distance} min={0} max={2} step={0.001} onChange={(v) => set((d) => (d.checks.face_review_max_distance = v))} />
        <NumberField {...withProblems} path="/checks/min_age" name="min_age" label={t('flows.form.min_age')} value={def.checks.min_age} min={0} max={120} onChange={(v) => set((d) => (d.checks.min_age = v))} />
      </Group>

      <Group inline legend={t('flows.form.decision')} problems={[...under('/decision', ['/decision/max_resubmissions', '/decision/review_due_hours']).filter((p) => !p.path.startsWith('/decision/presentation_attacks')), ...under('/double_validation')]}>
        <label className="field">
          <span>{t('flows.form.on_attention')}</span>
          <select
            name="on_attention"
            value={def.decision.on_attention}
            onChange={(e) => set((d) => (d.decision.on_attention = (e.target as HTMLSelectElement).value as FlowDefinition['decision']['on_attention']))}
          >
            <option value="review">{t('flows.form.on_attention.review')}</option>
            <option value="reject">{t('flows.form.on_attention.reject')}</option>
          </select>
        </label>
        <NumberField {...withProblems} path="/decision/max_resubmissions" name="max_resubmissions" label={t('flows.form.max_resubmissions')} value={def.decision.max_resubmissions} min={0} max={5} onChange={(v) => set((d) => (d.decision.max_resubmissions = v))} />
        <NumberField {...withProblems} path="/decision/review_due_hours" name="review_due_hours" label={t('flows.form.review_due_hours')} value={def.decision.review_due_hours} min={1} max={720} onChange={(v) => set((d) => (d.decision.review_due_hours = v))} />
        <Check name="double_validation" label={t('flows.form.double_validation')} checked={def.double_validation} onChange={(on) => set((d) => (d.double_validation = on))} />
        <Check
          name="double_validation_on_override"
          label={t('flows.form.double_validation_on_override')}
          checked={def.double_validation_on_override ?? false}
          onChange={(on) => set((d) => (d.double_validation_on_override = on))}
        />
      </Group>

      <AttackSettings def={def} set={set} problems={under('/decision/presentation_attacks')} />

      <Group legend={t('flows.form.questionnaire')} problems={under('/questionnaire', ['/questionnaire/review_threshold'])}>
        <NumberField {...withProblems} path="/questionnaire/review_threshold" name="review_threshold" label={t('flows.form.review_threshold')} value={def.questionnaire.review_threshold} min={0} max={10_000} onChange={(v) => set((d) => (d.questionnaire.review_threshold = v))} />
        {def.questionnaire.questions.map((q, qi) => (
          <div key={q.id + qi} role="group" aria-label={q.id} className="flow-question flow-inline">
            <p className="small mono">{q.id}</p>
            {q.answers.map((a, ai) => (
              <NumberField
                key={a.id + ai}
                {...withProblems}
                path={`/questionnaire/questions/${qi}/answers/${ai}/points`}
                name={`points_${q.id}_${a.id}`}
                label={t('flows.form.points', { answer: a.id })}
                value={a.points}
                min={0}
                max={100}
                onChange={(v) => set((d) => (d.questionnaire.questions[qi].answers[ai].points = v))}
              />
            ))}
          </div>
        ))}
        <p className="muted small">{t('flows.form.questions_in_json')}</p>
      </Group>

      <Group inline legend={t('flows.form.retention')} problems={[...under('/retention', ['/retention/images_days', '/retention/data_days']), ...under('/capture')]}>
        <NumberField {...withProblems} path="/retention/images_days" name="images_days" label={t('flows.form.images_days')} value={def.retention.images_days} min={1} max={3650} onChange={(v) => set((d) => (d.retention.images_days = v))} />
        <NumberField {...withProblems} path="/retention/data_days" name="data_days" label={t('flows.form.data_days')} value={def.retention.data_days} min={1} max={3650} onChange={(v) => set((d) => (d.retention.data_days = v))} />
        <NumberField {...withProblems} path="/case_lifetime_hours" name="case_lifetime_hours" label={t('flows.form.case_lifetime_hours')} value={def.case_lifetime_hours} min={1} max={2160} onChange={(v) => set((d) => (d.case_lifetime_hours = v))} />
        <Check name="allow_file_upload" label={t('flows.form.allow_file_upload')} checked={def.capture.allow_file_upload} onChange={(on) => set((d) => (d.capture.allow_file_upload = on))} />
      </Group>
    </div>
  );
}
