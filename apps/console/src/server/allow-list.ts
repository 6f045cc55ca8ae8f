/**
 * What the console proxies to the service: the operator-bound routes, review, case search, and the
 * client's settings, usage and contract the console administers (docs/operators.md). Anything else
 * answers 404, so a stolen session can do no more than the operator could in the app. Paths are
 * the service's, below /v1.
 */
const ID = '[A-Za-z0-9_]{1,64}';
const FLOW = '[a-z][a-z0-9_-]{0,63}';

const ROUTES: ReadonlyArray<readonly [method: string, pattern: string]> = [
  ['GET', '/operators/directory'],
  ['GET', '/operators'],
  ['POST', '/operators'],
  ['PATCH', `/operators/${ID}`],
  ['POST', `/operators/${ID}/revoke`],
  ['GET', '/reviews'],
  ['GET', '/reviews/metrics'],
  ['GET', '/reviews/analytics'],
  ['GET', '/reviews/summary'],
  ['GET', '/reviews/support-access'],
  ['GET', '/support-access'],
  ['POST', '/support-access'],
  ['POST', `/support-access/${ID}/revoke`],
  ['GET', `/reviews/${ID}`],
  ['POST', `/reviews/${ID}/claim`],
  ['POST', `/reviews/${ID}/lock`],
  ['GET', `/reviews/${ID}/case`],
  ['GET', `/reviews/${ID}/pieces/${ID}`],
  ['POST', `/reviews/${ID}/unmask`],
  ['POST', `/reviews/${ID}/corrections`],
  ['POST', `/reviews/${ID}/decision`],
  ['POST', `/reviews/${ID}/revision`],
  ['GET', '/cases'],
  ['GET', '/cases/export'],
  ['GET', `/cases/${ID}/record`],
  ['GET', `/cases/${ID}/pieces/${ID}`],
  ['POST', `/cases/${ID}/unmask`],
  ['POST', `/cases/${ID}/questionnaires/unmask`],
  ['POST', `/cases/${ID}/applicant-data/unmask`],
  ['POST', `/cases/${ID}/journey-link`],
  // The client's settings (administrators; the service checks the role on every call).
  ['GET', '/journey-appearance'],
  ['POST', '/journey-appearance'],
  // Flows (administrator and supervisor; the service checks the role on every call)
  ['GET', '/flows'],
  ['GET', `/flows/${FLOW}`],
  ['POST', `/flows/${FLOW}/versions`],
  ['POST', `/flows/${FLOW}/versions/[0-9]{1,10}/activate`],
  ['POST', `/flows/${FLOW}/dry-run`],
  ['GET', '/api-keys'],
  ['POST', '/api-keys'],
  ['DELETE', `/api-keys/${ID}`],
  ['GET', '/webhook-events'],
  ['GET', '/webhook-endpoints'],
  ['POST', '/webhook-endpoints'],
  ['POST', `/webhook-endpoints/${ID}/test`],
  ['POST', `/webhook-endpoints/${ID}/resume`],
  ['PATCH', `/webhook-endpoints/${ID}`],
  ['DELETE', `/webhook-endpoints/${ID}`],
  ['POST', `/webhook-endpoints/${ID}/disable`],
  ['POST', `/webhook-endpoints/${ID}/enable`],
  ['POST', `/webhook-endpoints/${ID}/rotate-secret`],
  ['GET', '/webhook-deliveries'],
  ['GET', `/webhook-deliveries/${ID}`],
  ['POST', `/webhook-deliveries/${ID}/replay`],
  ['GET', '/journey-embedding'],
  ['POST', '/journey-embedding'],
  ['GET', '/trust-anchors'],
  ['POST', '/trust-anchors'],
  ['DELETE', `/trust-anchors/${ID}`],
  // Usage and contract screen (ability readUsage: the service checks the operator's role).
  ['GET', '/usage'],
  ['GET', '/usage/daily'],
  ['GET', '/usage/export'],
  ['GET', '/api-usage'],
  ['GET', '/contract'],
];

const COMPILED = ROUTES.map(([method, pattern]) => ({ method, re: new RegExp(`^${pattern}$`) }));

/** True when `method path` (path below /v1, without the query) may be proxied. */
export function isProxied(method: string, path: string): boolean {
  // Literal routes like /reviews/summary also match the {id} patterns; both are allowed anyway.
  return COMPILED.some((r) => r.method === method && r.re.test(path));
}

export const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
