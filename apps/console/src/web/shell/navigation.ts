import type { OperatorRole } from '../domain.ts';
import type { MessageKey } from '../i18n/en.ts';

export type NavGroup = 'work' | 'oversight' | 'settings';

export interface NavItem {
  to:
    | '/queue'
    | '/search'
    | '/support'
    | '/metrics'
    | '/support-access'
    | '/usage'
    | '/operators'
    | '/flows'
    | '/appearance'
    | '/settings/api-keys'
    | '/settings/webhooks'
    | '/settings/origins'
    | '/settings/trust-anchors';
  label: MessageKey;
  /** The roles the service allows on the screen's routes: the others neither see the line nor get the screen. */
  roles: readonly OperatorRole[];
  group: NavGroup;
}

const STAFF: readonly OperatorRole[] = ['administrator', 'supervisor', 'reviewer'];
/** The service's abilities grantSupport, metrics, readUsage and readFlows: the same two roles. */
const OVERSIGHT: readonly OperatorRole[] = ['administrator', 'supervisor'];
const ADMINISTRATOR: readonly OperatorRole[] = ['administrator'];

/** The console's screens, one line each, in the order of the navigation. */
export const NAVIGATION: readonly NavItem[] = [
  { to: '/queue', label: 'nav.queue', roles: STAFF, group: 'work' },
  { to: '/search', label: 'nav.search', roles: STAFF, group: 'work' },
  { to: '/support', label: 'nav.support', roles: ['support'], group: 'work' },
  { to: '/metrics', label: 'nav.metrics', roles: OVERSIGHT, group: 'oversight' },
  { to: '/support-access', label: 'nav.supportAccess', roles: OVERSIGHT, group: 'oversight' },
  { to: '/usage', label: 'nav.usage', roles: OVERSIGHT, group: 'oversight' },
  { to: '/operators', label: 'nav.operators', roles: ADMINISTRATOR, group: 'settings' },
  { to: '/flows', label: 'nav.flows', roles: OVERSIGHT, group: 'settings' },
  { to: '/appearance', label: 'nav.appearance', roles: ADMINISTRATOR, group: 'settings' },
  // The client's integration settings (the service's manageIntegration ability).
  { to: '/settings/api-keys', label: 'nav.apiKeys', roles: ADMINISTRATOR, group: 'settings' },
  { to: '/settings/webhooks', label: 'nav.webhooks', roles: ADMINISTRATOR, group: 'settings' },
  { to: '/settings/origins', label: 'nav.origins', roles: ADMINISTRATOR, group: 'settings' },
  { to: '/settings/trust-anchors', label: 'nav.trustAnchors', roles: ADMINISTRATOR, group: 'settings' },
];

const GROUP_LABELS: Record<NavGroup, MessageKey> = { work: 'nav.group.work', oversight: 'nav.group.oversight', settings: 'nav.group.settings' };

/** The operator's screens by group (groups without a screen for the role left out). */
export function navigationFor(role: OperatorRole): { group: NavGroup; label: MessageKey; items: NavItem[] }[] {
  return (Object.keys(GROUP_LABELS) as NavGroup[])
    .map((group) => ({ group, label: GROUP_LABELS[group], items: NAVIGATION.filter((i) => i.group === group && i.roles.includes(role)) }))
    .filter((g) => g.items.length > 0);
}

/** Where an operator lands after signing in. */
export const homeFor = (role: OperatorRole) => (role === 'support' ? '/support' : '/queue');
