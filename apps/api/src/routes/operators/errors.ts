import type { ErrorCode } from '@idv/domain';

/** What any operator-bound route may answer before its own work. */
export const OPERATOR_ROUTE_ERRORS: ErrorCode[] = [
  'console_credential_required',
  'operator_required',
  'operator_unknown',
  'operator_revoked',
  'operator_role_insufficient',
];

/** Plus, on routes that need a recent re-authentication. */
export const REAUTH_ROUTE_ERRORS: ErrorCode[] = [...OPERATOR_ROUTE_ERRORS, 'reauth_required', 'reauth_invalid', 'identity_provider_unavailable'];

/**
 * On routes open to integration keys and to the console naming an operator (`alsoIntegration`):
 * the operator refusals, but never console_credential_required (any key may call them).
 */
export const ALSO_CONSOLE_ROUTE_ERRORS: ErrorCode[] = OPERATOR_ROUTE_ERRORS.filter((c) => c !== 'console_credential_required');

/**
 * On integration routes (no operator setting): the console credential, which does operator-bound
 * work only, is refused there (http/auth.ts).
 */
export const INTEGRATION_ROUTE_ERRORS: ErrorCode[] = ['integration_key_required'];
