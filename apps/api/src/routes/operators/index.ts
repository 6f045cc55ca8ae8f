import type { App, AppContext } from '../../context.ts';
import { registerOperatorDirectory } from './directory.ts';
import { registerInviteOperator } from './invite.ts';
import { registerListOperators } from './list.ts';
import { registerResolveOperator } from './resolve.ts';
import { registerRevokeOperator } from './revoke.ts';
import { registerUpdateOperator } from './update.ts';

export function registerOperatorRoutes(app: App, ctx: AppContext): void {
  registerResolveOperator(app, ctx);
  registerOperatorDirectory(app, ctx);
  registerListOperators(app, ctx);
  registerInviteOperator(app, ctx);
  registerUpdateOperator(app, ctx);
  registerRevokeOperator(app, ctx);
}
