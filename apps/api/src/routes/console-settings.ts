import type { FastifyContextConfig } from 'fastify';
import type { ErrorCode, RoleAbility } from '@idv/domain';
import { OPERATOR_ROUTE_ERRORS } from './operators/errors.ts';

/**
 * Route config of an integration route that manages the client's own settings (docs/operators.md,
 * "The client's settings through the console"): an integration key as the spec describes, or the
 * console credential naming an operator whose role has `ability`, checked on every call.
 */
export const throughConsole = (ability: RoleAbility): Pick<FastifyContextConfig, 'operator'> => ({ operator: { ability, alsoIntegration: true } });

/** What such a route may answer, through the console, before its own work. */
export const CONSOLE_SETTINGS_ERRORS: ErrorCode[] = OPERATOR_ROUTE_ERRORS.filter((c) => c !== 'console_credential_required');
