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
 * On integration routes also open to the console (`alsoIntegration`): an integration key passes as
 * before, a console credential must name an operator whose role allows the route.
 */
export const CONSOLE_READ_ERRORS: ErrorCode[] = OPERATOR_ROUTE_ERRORS.filter((c) => c !== 'console_credential_required');
