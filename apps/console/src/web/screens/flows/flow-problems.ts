import { ApiError } from '../../api/errors.ts';
// The service's own validation of a definition (schema and rules), imported file by file: it brings
// the schema library into this screen's chunk only, never into the first screen.
import { flowDefinitionProblems, type FlowProblem } from '../../../../../../packages/domain/src/flow.ts';

export type { FlowProblem };

/** What the service would refuse in this definition, at JSON pointers (`/checks/min_age`); empty when it would accept it. */
export const problemsOf = (def: unknown): FlowProblem[] => flowDefinitionProblems(def);

/**
 * The service's refusal of a definition at the field it names (`definition.checks.min_age` →
 * `/checks/min_age`), or null when the error names no part of the definition.
 */
export function serverProblem(error: unknown): FlowProblem | null {
  if (!(error instanceof ApiError) || !error.field?.startsWith('definition')) return null;
  const path = error.field.slice('definition'.length).split('.').join('/');
  return { path: path || '/', message: error.message };
}

/** Problems at `path` exactly. */
export const problemsAt = (problems: readonly FlowProblem[], path: string) => problems.filter((p) => p.path === path);

/** Problems at `prefix` or inside it, less those at `except` (shown by their own field). */
export const problemsUnder = (problems: readonly FlowProblem[], prefix: string, except: readonly string[] = []) =>
  problems.filter((p) => (p.path === prefix || p.path.startsWith(`${prefix}/`)) && !except.includes(p.path));
