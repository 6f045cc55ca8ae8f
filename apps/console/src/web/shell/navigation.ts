import type { OperatorRole } from '../domain.ts';
import type { MessageKey } from '../i18n/en.ts';

export interface NavItem {
  to: '/queue' | '/search' | '/support' | '/flows' | '/appearance' | '/settings/api-keys' | '/settings/webhooks' | '/settings/origins';
  label: MessageKey;
  roles: readonly OperatorRole[];
}

const STAFF: readonly OperatorRole[] = ['administrator', 'supervisor', 'reviewer'];

/**
 * The console's screens, one line each. The administration screens (operators, keys, webhooks,
 * flows, usage) join this list with their roles; the header and the navigation adapt.
 */
export const NAVIGATION: readonly NavItem[] = [
  { to: '/queue', label: 'nav.queue', roles: STAFF },
  { to: '/search', label: 'nav.search', roles: STAFF },
  { to: '/support', label: 'nav.support', roles: ['support'] },
  { to: '/flows', label: 'nav.flows', roles: ['administrator', 'supervisor'] },
  { to: '/appearance', label: 'nav.appearance', roles: ['administrator'] },
  // The client's integration settings (the service's manageIntegration ability).
  { to: '/settings/api-keys', label: 'nav.apiKeys', roles: ['administrator'] },
  { to: '/settings/webhooks', label: 'nav.webhooks', roles: ['administrator'] },
  { to: '/settings/origins', label: 'nav.origins', roles: ['administrator'] },
];

export const navigationFor = (role: OperatorRole) => NAVIGATION.filter((item) => item.roles.includes(role));

/** Where an operator lands after signing in. */
export const homeFor = (role: OperatorRole) => (role === 'support' ? '/support' : '/queue');
