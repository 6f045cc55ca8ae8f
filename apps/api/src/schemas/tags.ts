/**
 * The OpenAPI document's tags: the resources of the reference's menu, in the order an integrator
 * meets them (open a case, hand its journey link over, receive its webhooks, then the rest), then
 * the hosted journey's routes, then the console's, each named for its audience. (Not Redoc's
 * `x-tagGroups`: its group entries fail axe's label-content-name-mismatch.) Every route's `tags`
 * names one of these (`npm run openapi:lint`: operation-tag-defined).
 */
const TAGS = [
  { name: 'cases', 'x-displayName': 'Cases', description: 'A case is one verification of one person: open it, follow its state, read its results, and, with the permission `personal_data`, its personal data.' },
  { name: 'sessions', 'x-displayName': 'Journey links', description: 'A session is a journey link for a case, handed to the person; its token is in the link\'s fragment, never sent to a server.' },
  { name: 'webhooks', 'x-displayName': 'Webhook endpoints', description: 'Where the service posts events: declare an endpoint, change, disable or delete it, rotate its secret, and read or replay its deliveries.' },
  { name: 'webhook events', 'x-displayName': 'Webhook events', description: 'What the service sends to your endpoints: one signed POST per event type.' },
  { name: 'embedding', 'x-displayName': 'Journey embedding and appearance', description: 'Frame the journey in your own pages, and give it your name, logo and colours.' },
  { name: 'flows', 'x-displayName': 'Flows', description: 'What a case asks of the person and how it is decided: versioned, activated, tried on past cases.' },
  { name: 'wallet', 'x-displayName': 'Digital identity wallets', description: 'The certificates (trust anchors) that wallet credentials must chain to: IACA roots for mdoc, SD-JWT VC issuers\' certificates.' },
  { name: 'api keys', 'x-displayName': 'API keys', description: 'The integration keys of a client and environment.' },
  { name: 'usage', 'x-displayName': 'Usage and contract', description: 'What was measured, per month and per day, against what is subscribed.' },
  { name: 'journey', 'x-displayName': 'Hosted journey', description: 'Called by the hosted journey with the session token (`Authorization: Session <token>`), never by your back end.' },
  { name: 'wallet-protocol', 'x-displayName': 'Identity wallet (OpenID4VP)', description: 'Called by the person\'s identity wallet (OpenID4VP, cross-device): no key, no session, the wallet request\'s unguessable id is the handle. Never by your back end.' },
  { name: 'reviews', 'x-displayName': 'Console: reviews', description: 'The operator console\'s review queue: tasks, locks, decisions, unmasking and images, within the operator\'s clearance.' },
  { name: 'operators', 'x-displayName': 'Console: operators', description: 'The console\'s operators and their clearance (administrators).' },
  { name: 'support-access', 'x-displayName': 'Console: support access', description: 'Grants that open one case in review to the provider\'s support staff for a few hours.' },
] as const;

/** The top-level `tags` of the OpenAPI document. */
export function openapiTags() {
  return { tags: TAGS.map((t) => ({ ...t })) };
}
