import { Type } from '@sinclair/typebox';
import { insertOperator } from '@idv/db';
import { INVITATION_TTL_MS, newId, type OperatorRole, type Sensitivity } from '@idv/domain';
import { randomSecret, secretHash } from '@idv/vault';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { clearanceCountries } from './clearance.ts';
import { REAUTH_ROUTE_ERRORS } from './errors.ts';
import { NewOperatorSchema, OperatorInvitedSchema, presentOperator } from './schemas.ts';

export function registerInviteOperator(app: App, ctx: AppContext): void {
  app.post(
    '/v1/operators',
    {
      config: { operator: { ability: 'manageOperators', reauth: true } },
      schema: {
        operationId: 'inviteOperator',
        tags: ['operators'],
        summary: 'Invite an operator',
        description: 'Invite an operator (administrator, Op + Re); the invitation token is returned once and the service sends no e-mail',
        body: Type.Ref(NewOperatorSchema),
        response: { 201: Type.Ref(OperatorInvitedSchema), ...errorResponses(...BODY_ERRORS, ...REAUTH_ROUTE_ERRORS, 'invalid_country') },
      },
    },
    async (req, reply) => {
      const { tenant, actor } = operatorOf(req);
      const body = req.body as { name: string; email?: string; role: OperatorRole; countries: string[]; sensitivity: Sensitivity };
      const countries = clearanceCountries(body.countries);
      const now = ctx.now();
      const token = randomSecret('inv_');
      const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
      const row = await insertOperator(ctx.db, {
        id: newId('op', now.getTime()),
        ...tenant,
        name: body.name,
        email: body.email ?? null,
        role: body.role,
        countries,
        sensitivity: body.sensitivity,
        status: 'invited',
        invitationHash: secretHash(token),
        invitationExpiresAt: expiresAt,
        createdBy: actor,
        createdAt: now,
        updatedAt: now,
      });
      return reply.code(201).send({ operator: presentOperator(row), invitation_token: token, invitation_expires_at: expiresAt.toISOString() });
    },
  );
}
