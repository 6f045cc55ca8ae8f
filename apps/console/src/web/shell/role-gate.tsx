import { Navigate } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useSession } from '../session-context.tsx';
import { NAVIGATION, homeFor, type NavItem } from './navigation.ts';

/**
 * A screen reached by its address by an operator whose role has no line for it in the navigation
 * goes home instead. The service refuses the calls anyway (operator_role_insufficient); this only
 * spares the operator a screen of refusals.
 */
export function RoleGate({ screen, children }: { screen: NavItem['to']; children: ReactNode }) {
  const { role } = useSession().operator;
  const item = NAVIGATION.find((i) => i.to === screen);
  if (!item?.roles.includes(role)) return <Navigate to={homeFor(role)} replace />;
  return <>{children}</>;
}
