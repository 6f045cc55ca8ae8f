import { Navigate, Outlet, createRootRoute, createRoute, createRouter, lazyRouteComponent } from '@tanstack/react-router';
import { ErrorNotice, Loading } from './components/status.tsx';
import { reviewCaseQuery, reviewsPageQuery, reviewsSummaryQuery } from './queries/review-queries.ts';
import { decisionAnalyticsQuery, reviewMetricsQuery, usageQueries } from './queries/oversight-queries.ts';
import { queryClient } from './query-client.ts';
import { isTaskStatus, QueueScreen } from './screens/queue.tsx';
import { InvitationScreen } from './screens/invitation.tsx';
import { SignedOutScreen } from './screens/signed-out.tsx';
import { SessionGate, useSession } from './session-context.tsx';
import { Shell } from './shell/shell.tsx';
import { homeFor } from './shell/navigation.ts';
import { RoleGate } from './shell/role-gate.tsx';
import { DEFAULT_METRICS_WINDOW, currentPeriod, isPeriod, metricsWindowOf, type MetricsWindow } from './screens/oversight/search-params.ts';

/**
 * The console's routes. The queue ships in the entry; every other screen is a chunk fetched when
 * reached (a new screen: a route here inside a RoleGate, a line in shell/navigation.ts). Loaders
 * start their calls at navigation without waiting, and never on hover: opening a case is journaled
 * as a consultation.
 */
const rootRoute = createRootRoute({ component: Outlet });

// Screens shown without a session.
const signedOutRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signed-out',
  validateSearch: (s: Record<string, unknown>): { reason?: string } => (typeof s.reason === 'string' ? { reason: s.reason.slice(0, 64) } : {}),
  component: function SignedOut() {
    return <SignedOutScreen reason={signedOutRoute.useSearch().reason} />;
  },
});
const invitationRoute = createRoute({ getParentRoute: () => rootRoute, path: '/invitation', component: InvitationScreen });

// Everything else needs a session and lives in the shell.
const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  component: () => (
    <SessionGate>
      <Shell />
    </SessionGate>
  ),
});

const homeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  component: function Home() {
    return <Navigate to={homeFor(useSession().operator.role)} replace />;
  },
});

const queueRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/queue',
  validateSearch: (s: Record<string, unknown>): { status?: 'open' | 'second_validation' | 'escalated' | 'closed' } => (isTaskStatus(s.status) ? { status: s.status } : {}),
  loaderDeps: ({ search }) => ({ status: search.status }),
  loader: ({ deps }) => {
    // The rows first, the counters after: the summary counts the whole queue, and on the embedded
    // database (one connection) it would hold the page's rows back.
    void queryClient.prefetchQuery(reviewsPageQuery(deps.status, undefined)).then(() => queryClient.prefetchQuery(reviewsSummaryQuery()));
  },
  component: function Queue() {
    return <QueueScreen status={queueRoute.useSearch().status} />;
  },
});

const SearchScreen = lazyRouteComponent(() => import('./screens/search.tsx'), 'SearchScreen');
const searchRoute = createRoute({ getParentRoute: () => appRoute, path: '/search', component: SearchScreen });

const SupportScreen = lazyRouteComponent(() => import('./screens/support.tsx'), 'SupportScreen');
const supportRoute = createRoute({ getParentRoute: () => appRoute, path: '/support', component: SupportScreen });

const AppearanceScreen = lazyRouteComponent(() => import('./screens/appearance.tsx'), 'AppearanceScreen');
const appearanceRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/appearance',
  component: () => (
    <RoleGate screen="/appearance">
      <AppearanceScreen />
    </RoleGate>
  ),
});

// Flows (administrators and supervisors): the list, and one flow with its versions.
const FlowsScreen = lazyRouteComponent(() => import('./screens/flows/flows-screen.tsx'), 'FlowsScreen');
const flowsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/flows',
  component: () => (
    <RoleGate screen="/flows">
      <FlowsScreen />
    </RoleGate>
  ),
});
const NewFlowScreen = lazyRouteComponent(() => import('./screens/flows/new-flow-screen.tsx'), 'NewFlowScreen');
const newFlowRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/flows/new',
  component: () => (
    <RoleGate screen="/flows">
      <NewFlowScreen />
    </RoleGate>
  ),
});
const FlowScreen = lazyRouteComponent(() => import('./screens/flows/flow-screen.tsx'), 'FlowScreen');
const flowRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/flows/$name',
  validateSearch: (s: Record<string, unknown>): { version?: number } => {
    const v = Number(s.version);
    return Number.isInteger(v) && v > 0 ? { version: v } : {};
  },
  component: function Flow() {
    const { name } = flowRoute.useParams();
    return (
      <RoleGate screen="/flows">
        <FlowScreen key={name} name={name} version={flowRoute.useSearch().version} />
      </RoleGate>
    );
  },
});

const CaseScreen = lazyRouteComponent(() => import('./screens/case/case-screen.tsx'), 'CaseScreen');
const taskRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/tasks/$taskId',
  loader: ({ params }) => {
    void queryClient.prefetchQuery(reviewCaseQuery(params.taskId));
    void CaseScreen.preload?.();
  },
  component: function Task() {
    const { taskId } = taskRoute.useParams();
    // A new task is a new screen: its state (lock, revealed values) starts afresh.
    return <CaseScreen key={taskId} taskId={taskId} />;
  },
});

const RecordScreen = lazyRouteComponent(() => import('./screens/case/record-screen.tsx'), 'RecordScreen');
const caseRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/cases/$caseId',
  component: function Record() {
    const { caseId } = caseRoute.useParams();
    return <RecordScreen key={caseId} caseId={caseId} />;
  },
});

// The client's integration settings (administrator): API keys, webhooks and their log, embedding origins, wallet trust anchors.
const ApiKeysScreen = lazyRouteComponent(() => import('./screens/integration/api-keys.tsx'), 'ApiKeysScreen');
const apiKeysRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings/api-keys',
  component: () => (
    <RoleGate screen="/settings/api-keys">
      <ApiKeysScreen />
    </RoleGate>
  ),
});
const WebhooksScreen = lazyRouteComponent(() => import('./screens/integration/webhooks.tsx'), 'WebhooksScreen');
const webhooksRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings/webhooks',
  component: () => (
    <RoleGate screen="/settings/webhooks">
      <WebhooksScreen />
    </RoleGate>
  ),
});
const DeliveriesScreen = lazyRouteComponent(() => import('./screens/integration/deliveries.tsx'), 'DeliveriesScreen');
const deliveriesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings/webhooks/deliveries',
  // An endpoint id (whe_…) only: it names no person.
  validateSearch: (s: Record<string, unknown>): { endpoint?: string } => (typeof s.endpoint === 'string' && /^whe_[0-9a-z]{1,36}$/.test(s.endpoint) ? { endpoint: s.endpoint } : {}),
  component: function Deliveries() {
    const { endpoint } = deliveriesRoute.useSearch();
    return (
      <RoleGate screen="/settings/webhooks">
        <DeliveriesScreen key={endpoint ?? ''} endpoint={endpoint} />
      </RoleGate>
    );
  },
});
const DeliveryScreen = lazyRouteComponent(() => import('./screens/integration/delivery.tsx'), 'DeliveryScreen');
const deliveryRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings/webhooks/deliveries/$deliveryId',
  component: function Delivery() {
    const { deliveryId } = deliveryRoute.useParams();
    return (
      <RoleGate screen="/settings/webhooks">
        <DeliveryScreen key={deliveryId} deliveryId={deliveryId} />
      </RoleGate>
    );
  },
});
const OriginsScreen = lazyRouteComponent(() => import('./screens/integration/origins.tsx'), 'OriginsScreen');
const originsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings/origins',
  component: () => (
    <RoleGate screen="/settings/origins">
      <OriginsScreen />
    </RoleGate>
  ),
});
const TrustAnchorsScreen = lazyRouteComponent(() => import('./screens/integration/trust-anchors.tsx'), 'TrustAnchorsScreen');
const trustAnchorsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings/trust-anchors',
  component: () => (
    <RoleGate screen="/settings/trust-anchors">
      <TrustAnchorsScreen />
    </RoleGate>
  ),
});

// Oversight screens, each a chunk of its own; the chart library comes with the charts' screens only.
const OperatorsScreen = lazyRouteComponent(() => import('./screens/oversight/operators.tsx'), 'OperatorsScreen');
const operatorsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/operators',
  component: () => (
    <RoleGate screen="/operators">
      <OperatorsScreen />
    </RoleGate>
  ),
});

const SupportAccessScreen = lazyRouteComponent(() => import('./screens/oversight/support-access.tsx'), 'SupportAccessScreen');
const supportAccessRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/support-access',
  component: () => (
    <RoleGate screen="/support-access">
      <SupportAccessScreen />
    </RoleGate>
  ),
});

const MetricsScreen = lazyRouteComponent(() => import('./screens/oversight/metrics.tsx'), 'MetricsScreen');
const metricsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/metrics',
  validateSearch: (s: Record<string, unknown>): { days?: MetricsWindow } => {
    const days = metricsWindowOf(s.days);
    return days ? { days } : {};
  },
  loaderDeps: ({ search }) => ({ days: search.days ?? DEFAULT_METRICS_WINDOW }),
  loader: ({ deps }) => {
    // The figures and the screen's chunk (with the chart library) at once.
    void queryClient.prefetchQuery(reviewMetricsQuery(deps.days));
    void queryClient.prefetchQuery(decisionAnalyticsQuery(deps.days));
    void MetricsScreen.preload?.();
  },
  component: function Metrics() {
    const days = metricsRoute.useSearch().days ?? DEFAULT_METRICS_WINDOW;
    const navigate = metricsRoute.useNavigate();
    return (
      <RoleGate screen="/metrics">
        <MetricsScreen days={days} onDays={(d: MetricsWindow) => void navigate({ search: { days: d }, replace: true })} />
      </RoleGate>
    );
  },
});

const UsageScreen = lazyRouteComponent(() => import('./screens/oversight/usage.tsx'), 'UsageScreen');
const usageRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/usage',
  validateSearch: (s: Record<string, unknown>): { period?: string } => (isPeriod(s.period) ? { period: s.period } : {}),
  loaderDeps: ({ search }) => ({ period: search.period ?? currentPeriod() }),
  loader: ({ deps }) => {
    const q = usageQueries(deps.period);
    void queryClient.prefetchQuery(q.usage);
    void queryClient.prefetchQuery(q.daily);
    void queryClient.prefetchQuery(q.contract);
    void queryClient.prefetchQuery(q.calls);
    void UsageScreen.preload?.();
  },
  component: function Usage() {
    const period = usageRoute.useSearch().period ?? currentPeriod();
    const navigate = usageRoute.useNavigate();
    return (
      <RoleGate screen="/usage">
        <UsageScreen period={period} onPeriod={(p: string) => void navigate({ search: { period: p }, replace: true })} />
      </RoleGate>
    );
  },
});

const routeTree = rootRoute.addChildren([
  signedOutRoute,
  invitationRoute,
  appRoute.addChildren([
    homeRoute,
    queueRoute,
    searchRoute,
    supportRoute,
    taskRoute,
    caseRoute,
    metricsRoute,
    supportAccessRoute,
    usageRoute,
    operatorsRoute,
    flowsRoute,
    newFlowRoute,
    flowRoute,
    appearanceRoute,
    apiKeysRoute,
    webhooksRoute,
    deliveriesRoute,
    deliveryRoute,
    originsRoute,
    trustAnchorsRoute,
  ]),
]);

export const router = createRouter({
  routeTree,
  defaultPendingComponent: () => <Loading />,
  defaultErrorComponent: ({ error }) => <ErrorNotice error={error} />,
  defaultNotFoundComponent: () => <Navigate to="/" replace />,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
