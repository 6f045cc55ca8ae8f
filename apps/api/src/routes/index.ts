import type { App, AppContext } from '../context.ts';
import { registerCreateApiKey } from './api-keys/create.ts';
import { registerListApiKeys } from './api-keys/list.ts';
import { registerRevokeApiKey } from './api-keys/revoke.ts';
import { registerGetApiUsage } from './api-usage/get.ts';
import { registerCreateCase } from './cases/create.ts';
import { registerGetCase } from './cases/get.ts';
import { registerListCases } from './cases/list.ts';
import { registerCreateSession } from './sessions/create.ts';
import { registerGetSession } from './sessions/get.ts';

export function registerRoutes(app: App, ctx: AppContext): void {
  registerCreateApiKey(app, ctx);
  registerListApiKeys(app, ctx);
  registerRevokeApiKey(app, ctx);
  registerCreateCase(app, ctx);
  registerListCases(app, ctx);
  registerGetCase(app, ctx);
  registerCreateSession(app, ctx);
  registerGetSession(app, ctx);
  registerGetApiUsage(app, ctx);
}
