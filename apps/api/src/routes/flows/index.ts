import type { App, AppContext } from '../../context.ts';
import { registerDryRunFlow } from './dry-run.ts';
import { registerReadFlows } from './read.ts';
import { registerWriteFlows } from './write.ts';

export function registerFlowRoutes(app: App, ctx: AppContext): void {
  registerReadFlows(app, ctx);
  registerWriteFlows(app, ctx);
  registerDryRunFlow(app, ctx);
}
