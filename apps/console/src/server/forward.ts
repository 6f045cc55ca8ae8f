import type { ConsoleContext } from './context.ts';
import type { ForwardRequest, ServiceAnswer } from './service-client.ts';
import type { Session } from './sessions.ts';

/**
 * A call to the service on behalf of the session's operator: the console credential, the
 * operator id, and the session's ID token as the re-authentication proof while it is recent
 * (issued less than REAUTH_MAX_AGE ago); the service decides whether the action needs it.
 */
export function forwardForSession(ctx: ConsoleContext, session: Session, req: Omit<ForwardRequest, 'operatorId' | 'reauthToken'>): Promise<ServiceAnswer> {
  // A token without auth_time is never sent: the service would answer reauth_invalid (a dead end)
  // where reauth_required starts the round trip, whose max_age=0 makes the provider add it.
  const authTime = session.data.authTime;
  const recent = authTime !== null && ctx.now().getTime() / 1000 - authTime < ctx.reauthMaxAgeS;
  return ctx.service.call({ ...req, operatorId: session.data.operatorId, reauthToken: recent ? session.data.idToken : undefined });
}

/** The service no longer knows the operator as active: the session ends. */
export function operatorGone(answer: ServiceAnswer): boolean {
  return answer.errorCode === 'operator_revoked' || answer.errorCode === 'operator_unknown' || answer.errorCode === 'subject_unknown';
}
