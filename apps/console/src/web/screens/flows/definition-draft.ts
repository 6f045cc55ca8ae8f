import { useMemo, useState } from 'react';
import { pretty, type FlowDefinition } from './flow-model.ts';
import { problemsOf, serverProblem, type FlowProblem } from './flow-problems.ts';

/**
 * A definition being edited, in the form and in its JSON, kept in sync both ways: the form writes
 * the JSON; JSON that parses redraws the form (when complete enough for it). Its problems are the
 * service's own rules run here, plus the last refusal of the service at the field it names, until
 * the next change.
 */
export function useDefinitionDraft(initial: unknown) {
  const [def, setDef] = useState<unknown>(initial);
  const [text, setText] = useState(() => pretty(initial));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<FlowProblem | null>(null);
  const local = useMemo(() => (jsonError === null ? problemsOf(def) : []), [def, jsonError]);
  return {
    def,
    text,
    jsonError,
    /** The service's rules broken here: nothing may be sent while there are any. */
    local,
    /** Everything to show: the rules broken here, and the service's last refusal. */
    problems: refusal && !local.some((p) => p.path === refusal.path) ? [...local, refusal] : local,
    usable: jsonError === null && local.length === 0,
    fromForm(next: FlowDefinition) {
      setDef(next);
      setText(pretty(next));
      setJsonError(null);
      setRefusal(null);
    },
    fromJson(value: string) {
      setText(value);
      setRefusal(null);
      try {
        setDef(JSON.parse(value));
        setJsonError(null);
      } catch (err) {
        setJsonError((err as Error).message);
      }
    },
    /** Replaces the whole draft (a template or another flow chosen as the start). */
    reset(next: unknown) {
      setDef(next);
      setText(pretty(next));
      setJsonError(null);
      setRefusal(null);
    },
    /** Shows the service's refusal at its field, when it names one. */
    refused(error: unknown) {
      setRefusal(serverProblem(error));
    },
  };
}

export type DefinitionDraft = ReturnType<typeof useDefinitionDraft>;
