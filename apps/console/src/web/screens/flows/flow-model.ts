import type { components } from '../../api/openapi-types.ts';
import type { OperatorRole } from '../../domain.ts';

/**
 * The flow definition as the console edits it, typed from the OpenAPI document (the service's
 * FlowDefinitionSchema). The closed lists are written here (`Complete` makes a value added to the
 * service's list a type error here until the form offers it); the service's validation itself is
 * imported by flow-problems.ts, in the flows screens' chunk only.
 */
export type FlowDefinition = components['schemas']['FlowDefinition'];
export type FlowVersion = components['schemas']['FlowVersion'];
export type DryRun = components['schemas']['FlowDryRun'];
export type Outcome = DryRun['matrix'][number]['from'];

type Complete<List extends readonly string[], All extends string> = [Exclude<All, List[number]>] extends [never] ? List : never;
const complete = <All extends string>() => <const List extends readonly All[]>(list: Complete<List, All>) => list;

export const STEPS = complete<FlowDefinition['steps'][number]>()(['consent', 'applicant', 'questionnaire', 'wallet', 'document', 'face']);
export const DOCUMENT_TYPES = complete<FlowDefinition['documents'][number]['types'][number]>()(['passport', 'id_card', 'driving_licence', 'residence_permit', 'visa']);
export const CHALLENGES = complete<FlowDefinition['liveness']['challenges'][number]>()(['turn_left', 'turn_right', 'look_up', 'look_down']);
export const OUTCOMES = complete<Outcome>()(['approved', 'in_review', 'resubmission_requested', 'rejected']);

/** Who may create and activate versions (the service's manageFlows); readFlows (supervisors too) reads and dry-runs. */
export const canManageFlows = (role: OperatorRole) => role === 'administrator';

/** The Idempotency-Key of one click (the service requires it of these writes; a retried request stays one action). */
export const oneClick = () => ({ 'idempotency-key': crypto.randomUUID() });

/** The JSON beside the form, as the operator reads and edits it. */
export const pretty = (def: unknown) => JSON.stringify(def, null, 2);

/**
 * Whether the form can show a definition typed in the JSON: every part it reads is there with the
 * right kind of value. The service validates everything else when the draft is sent.
 */
export function formable(def: unknown): def is FlowDefinition {
  const d = def as Record<string, any> | null;
  const obj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  return (
    obj(d) &&
    Array.isArray(d!.steps) &&
    Array.isArray(d!.documents) &&
    d!.documents.every((e: unknown) => obj(e) && Array.isArray((e as { types?: unknown }).types)) &&
    obj(d!.liveness) &&
    Array.isArray(d!.liveness.challenges) &&
    obj(d!.checks) &&
    obj(d!.decision) &&
    obj(d!.retention) &&
    obj(d!.capture) &&
    obj(d!.questionnaire) &&
    Array.isArray(d!.questionnaire.questions) &&
    d!.questionnaire.questions.every((q: unknown) => obj(q) && Array.isArray((q as { answers?: unknown }).answers))
  );
}

/** A copy of the definition with one change: the form never mutates what the query cache holds. */
export function changed(def: FlowDefinition, change: (d: FlowDefinition) => void): FlowDefinition {
  const copy = structuredClone(def);
  change(copy);
  return copy;
}

/** `list` with `item` in or out, kept in the order of `order`. */
export function toggled<T extends string>(list: readonly T[], item: T, on: boolean, order: readonly T[]): T[] {
  const set = new Set(list);
  if (on) set.add(item);
  else set.delete(item);
  return order.filter((x) => set.has(x));
}
