// The service's templates, imported file by file (the domain package's index holds server code).
import { FLOW_TEMPLATES, FLOW_TEMPLATE_NAMES, type FlowTemplateName } from '../../../../../../packages/domain/src/flow-templates.ts';
import { FLOW_NAME_PATTERN } from '../../../../../../packages/domain/src/flow.ts';
import type { FlowDefinition } from './flow-model.ts';

export { FLOW_TEMPLATE_NAMES, type FlowTemplateName };

/** A template's definition, as a copy the editor may change. */
export const templateDefinition = (name: FlowTemplateName): FlowDefinition => structuredClone(FLOW_TEMPLATES[name]) as FlowDefinition;

const NAME = new RegExp(FLOW_NAME_PATTERN);
/**
 * A flow's name as the service accepts it (lower case, digits, - and _; a letter first; at most
 * 64), less `new`: /flows/new is this screen's own address, so such a flow could not be opened here.
 */
export const validFlowName = (name: string) => NAME.test(name) && name !== 'new';
