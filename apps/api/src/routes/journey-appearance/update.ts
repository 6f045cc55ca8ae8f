import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { appendClientJournal, saveAppearance, type LogoBytes } from '@idv/db';
import { LOGO_LIMITS, checkAppearance } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { actorOf } from '../../http/operator.ts';
import { SIGNED_ERRORS, SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { inspectLogo } from '../../services/images.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentAppearance } from '../../presenters/appearance.ts';
import { JourneyAppearanceUpdateSchema } from './schemas.ts';

/** The JSON body carries the logo in base64: a third more than the logo, and the rest of the fields. */
const BODY_LIMIT = Math.ceil(LOGO_LIMITS.maxBytes / 3) * 4 + 4096;

/** Decodes the logo (strict base64: anything else would be silently skipped by Buffer.from) and checks the image. */
async function readLogo(data: string): Promise<LogoBytes> {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) {
    throw new ApiError('parameter_invalid', 'logo.data_base64 is not base64.', 'logo.data_base64');
  }
  const bytes = Buffer.from(data, 'base64');
  const inspected = await inspectLogo(bytes);
  return { data: bytes, type: inspected.type, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export function registerUpdateJourneyAppearance(app: App, ctx: AppContext): void {
  app.post(
    '/v1/journey-appearance',
    {
      bodyLimit: BODY_LIMIT,
      config: { signed: true, operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'updateJourneyAppearance',
        tags: ['embedding'],
        summary: "Set the journey's appearance",
        description: 'Replace the journey’s display name, colours and (optionally) logo; colours must meet WCAG AA contrast (signed, idempotent, journaled)',
        headers: SignedOrConsoleHeaders,
        body: Type.Ref(JourneyAppearanceUpdateSchema),
        response: {
          200: Type.Ref('JourneyAppearance'),
          ...errorResponses(...SIGNED_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS, 'appearance_invalid', 'image_too_large', 'image_type_unsupported', 'image_unreadable', 'image_dimensions_invalid'),
        },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const checked = checkAppearance(body);
      if (!checked.ok) throw new ApiError('appearance_invalid', checked.message, checked.field);
      // The image is checked before the idempotency reservation: a refused logo stores nothing.
      const logo = body.logo ? await readLogo(body.logo.data_base64) : body.logo;
      return runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { tenant } = authOf(req);
        const now = ctx.now();
        const actor = actorOf(req);
        const row = await saveAppearance(tx, tenant, { ...checked.value, logo }, actor, now);
        await appendClientJournal(tx, tenant, {
          actor,
          action: 'journey_appearance.updated',
          detail: {
            display_name: checked.value.displayName,
            primary_color: checked.value.primaryColor,
            background_color: checked.value.backgroundColor,
            logo: logo === undefined ? 'kept' : logo === null ? 'removed' : logo.sha256,
          },
          at: now,
        });
        return { status: 200, body: presentAppearance(row) };
      });
    },
  );
}
