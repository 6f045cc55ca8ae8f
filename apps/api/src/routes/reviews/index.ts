import type { App, AppContext } from '../../context.ts';
import { registerCaseJourneyLink } from '../cases/journey-link.ts';
import { registerCaseRecord } from '../cases/record.ts';
import { registerDecideCase } from '../cases/decision.ts';
import { registerReviewCase } from './case.ts';
import { registerClaimReview } from './claim.ts';
import { registerAddCorrection } from './corrections.ts';
import { registerDecideReview } from './decision.ts';
import { registerGetReview } from './get.ts';
import { registerListReviews } from './list.ts';
import { registerExtendLock } from './lock.ts';
import { registerReviewMetrics } from './metrics.ts';
import { registerDecisionAnalytics } from './analytics.ts';
import { registerReviseReview } from './revision.ts';
import { registerReviewSummary } from './summary.ts';

export function registerReviewRoutes(app: App, ctx: AppContext): void {
  registerListReviews(app, ctx);
  registerReviewSummary(app, ctx);
  registerReviewMetrics(app, ctx);
  registerDecisionAnalytics(app, ctx);
  registerGetReview(app, ctx);
  registerClaimReview(app, ctx);
  registerExtendLock(app, ctx);
  registerReviewCase(app, ctx);
  registerAddCorrection(app, ctx);
  registerDecideReview(app, ctx);
  registerReviseReview(app, ctx);
  registerDecideCase(app, ctx);
  registerCaseJourneyLink(app, ctx);
  registerCaseRecord(app, ctx);
}
