import { useI18n } from '../../i18n/index.tsx';
import type { DefinitionDraft } from './definition-draft.ts';
import { FlowForm } from './flow-form.tsx';
import { formable } from './flow-model.ts';

/**
 * A draft's form and JSON side by side, and what the service would refuse in it: each problem
 * beside its field in the form, and all of them listed under the editor with where they are in
 * the JSON (a problem of a part the form does not show is found there).
 */
export function DefinitionEditor({ draft }: { draft: DefinitionDraft }) {
  const { t } = useI18n();
  return (
    <>
      <div className="flow-editor">
        <div>
          <h3>{t('flows.form.title')}</h3>
          {formable(draft.def) ? <FlowForm def={draft.def} problems={draft.problems} onChange={draft.fromForm} /> : <p className="notice notice-warning">{t('flows.form.incomplete')}</p>}
        </div>
        <div>
          <label className="field">
            <span>{t('flows.json')}</span>
            <textarea
              className="flow-json mono"
              spellCheck={false}
              value={draft.text}
              rows={30}
              onInput={(e) => draft.fromJson((e.target as HTMLTextAreaElement).value)}
              aria-invalid={draft.jsonError !== null}
              aria-describedby={draft.jsonError ? 'flow-json-error' : undefined}
            />
          </label>
          {draft.jsonError ? (
            <p id="flow-json-error" className="field-error">
              {t('flows.json_invalid', { message: draft.jsonError })}
            </p>
          ) : null}
        </div>
      </div>
      {draft.problems.length ? (
        <div className="notice notice-warning flow-problems" role="alert">
          <p className="notice-title">{t('flows.problems', { n: draft.problems.length })}</p>
          <ul>
            {draft.problems.map((p) => (
              <li key={`${p.path}|${p.message}`}>
                <code>{p.path}</code> {p.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
