import type { App, AppContext } from '../../context.ts';
import { registerAccessLog } from './access-log.ts';
import { registerCaseData } from './data.ts';
import { registerErasure } from './erasure.ts';
import { registerImageRoutes } from './images.ts';
import { registerUnmaskRoutes } from './unmask.ts';

/** Personal data: reading it (client and operators), its access log, its erasure. */
export function registerPersonalDataRoutes(app: App, ctx: AppContext): void {
  registerCaseData(app, ctx);
  registerUnmaskRoutes(app, ctx);
  registerAccessLog(app, ctx);
  registerErasure(app, ctx);
  registerImageRoutes(app, ctx);
}
