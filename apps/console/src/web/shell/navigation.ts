import type { OperatorRole } from '../domain.ts';
import type { MessageKey } from '../i18n/en.ts';

export interface NavItem {
  to: '/queue' | '/search' | '/support' | '/operators' | '/support-access' | '/metrics' | '/usage';
  label: MessageKey;
  roles: readonly OperatorRole[];
}

const STAFF: readonly OperatorRole[] = ['administrator', 'supervisor', 'reviewer'];
/** The service's abilities grantSupport, metrics and readUsage: the same two roles. */
const OVERSIGHT: readonly OperatorRole[] = ['administrator', 'supervisor'];

/**
 * The console's screens, one line each. The administration screens (operators, keys, webhooks,
 * flows, usage) join this list with their roles; the header and the navigation adapt.
 */
export const NAVIGATION: readonly NavItem[] = [
  { to: '/queue', label: 'nav.queue', roles: STAFF },
  { to: '/search', label: 'nav.search', roles: STAFF },
  { to: '/support', label: 'nav.support', roles: ['support'] },
  // Oversight (issue 18): each line's roles are those the service allows on the screen's routes.
  { to: '/metrics', label: 'nav.metrics', roles: OVERSIGHT },
  { to: '/support-access', label: 'nav.supportAccess', roles: OVERSIGHT },
  { to: '/operators', label: 'nav.operators', roles: ['administrator'] },
  { to: '/usage', label: 'nav.usage', roles: OVERSIGHT },
];

export const navigationFor = (role: OperatorRole) => NAVIGATION.filter((item) => item.roles.includes(role));

/** Where an operator lands after signing in. */
export const homeFor = (role: OperatorRole) => (role === 'support' ? '/support' : '/queue');
