import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';

/**
 * Who may change the trust anchors. An anchor decides whose wallet credentials pass as a verified
 * identity: adding one lets its holder approve people, removing one refuses them. That is the
 * power over outcomes the `decisions` permission guards, so an integration key must hold it; in the
 * console, an administrator (manageIntegration). Reading them needs neither (they are public).
 */
export function requireAnchorWriter(req: FastifyRequest, what: string): void {
  if (!req.operator && !authOf(req).key.permissions.includes('decisions')) {
    throw new ApiError('permission_denied', `${what} requires a key with the permission decisions.`);
  }
}
