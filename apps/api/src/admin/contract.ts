import { endSubscription, findClient, listSubscriptions, setSubscription, type Db } from '@idv/db';
import {
  BLOCKABLE_SERVICES,
  MAX_MONTHLY_QUOTA,
  OFFER_PATTERN,
  OVER_QUOTA_BEHAVIOURS,
  USAGE_SERVICES,
  isId,
  type OverQuotaBehaviour,
} from '@idv/domain';
import { presentSubscription } from '../presenters/contract.ts';
import { UsageError, oneOf, required } from './usage-error.ts';

export const CONTRACT_USAGE = `  npm run admin -- contract set --client <cli_…> --service ${USAGE_SERVICES.join('|')} --offer <label>
                              --quota <units per month>|unlimited [--over-quota ${OVER_QUOTA_BEHAVIOURS.join('|')}]
                              [--starts <instant>] [--ends <instant>]
                                                    subscribes from --starts (default now); the subscription of
                                                    that service running then ends there; block is for verification
  npm run admin -- contract list --client <cli_…>     every subscription, ended ones too, with its state now
  npm run admin -- contract end --client <cli_…> --subscription <sub_…> [--at <instant>]
                                                    ends it at --at (default now); an upcoming one is cancelled
  (an instant is YYYY-MM-DD, midnight UTC, or an ISO 8601 time with Z or an offset)`;

const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const t = INSTANT.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(t)) throw new UsageError(`--${name} must be YYYY-MM-DD or an ISO 8601 time with Z or an offset`);
  return new Date(t);
}

function quotaOf(value: string): number | null {
  if (value === 'unlimited') return null;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n > MAX_MONTHLY_QUOTA) {
    throw new UsageError(`--quota must be unlimited or an integer from 0 to ${MAX_MONTHLY_QUOTA}`);
  }
  return n;
}

/** `contract set|list|end`: the provider's side of the contract GET /v1/contract shows. */
export async function contractCommand(
  db: Db,
  verb: string | undefined,
  str: (name: string) => string | undefined,
  now: Date,
): Promise<unknown> {
  if (verb !== 'set' && verb !== 'list' && verb !== 'end') throw new UsageError(`unknown command: contract ${verb ?? ''}`);
  const clientId = required('client', str('client'));
  if (!(await findClient(db, clientId))) throw new UsageError(`no client ${clientId}`);
  switch (verb) {
    case 'list':
      return (await listSubscriptions(db, clientId)).map((r) => presentSubscription(r, now));
    case 'set': {
      const service = oneOf('service', str('service'), USAGE_SERVICES);
      const offer = required('offer', str('offer'));
      if (!new RegExp(OFFER_PATTERN).test(offer)) {
        throw new UsageError('--offer must be 1 to 64 letters, digits, spaces, dots, _ or -, starting with a letter or digit');
      }
      const quota = quotaOf(required('quota', str('quota')));
      let overQuota: OverQuotaBehaviour = 'allow';
      if (quota === null) {
        if (str('over-quota')) throw new UsageError('--over-quota applies to a numbered quota, not to unlimited');
      } else {
        overQuota = oneOf('over-quota', str('over-quota'), OVER_QUOTA_BEHAVIOURS);
        if (overQuota === 'block' && !BLOCKABLE_SERVICES.includes(service)) {
          throw new UsageError(`--over-quota block applies to ${BLOCKABLE_SERVICES.join(', ')} only; use notify or allow for ${service}`);
        }
      }
      const startsAt = instant('starts', str('starts')) ?? now;
      const endsAt = instant('ends', str('ends')) ?? null;
      if (endsAt && endsAt <= startsAt) throw new UsageError('--ends must come after --starts');
      const result = await db.transaction((tx) =>
        setSubscription(tx, { clientId, service, offer, monthlyQuota: quota, overQuota, startsAt, endsAt }, now),
      );
      if (!result.ok) {
        throw new UsageError(
          `subscription ${result.conflict.id} of ${service} starts at ${result.conflict.startsAt.toISOString()}, within the new period: end it first`,
        );
      }
      return { subscription: presentSubscription(result.subscription, now), ended: result.ended.map((r) => presentSubscription(r, now)) };
    }
    case 'end': {
      const id = required('subscription', str('subscription'));
      if (!isId('sub', id)) throw new UsageError('--subscription must be a subscription id (sub_…)');
      const row = await db.transaction((tx) => endSubscription(tx, clientId, id, instant('at', str('at')) ?? now));
      if (!row) throw new UsageError(`client ${clientId} has no subscription ${id}`);
      return presentSubscription(row, now);
    }
  }
}
