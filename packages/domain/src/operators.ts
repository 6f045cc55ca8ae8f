/**
 * Operators and their clearances, as pure rules (the console authenticates operators; the service
 * reads what each may see and do on every call). A task is within a clearance when its country is
 * one of the operator's (or `*`) and its sensitivity at most the operator's level.
 */
export const OPERATOR_ROLES = ['administrator', 'supervisor', 'reviewer', 'support'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** Ordered from least to most sensitive; an operator sees tasks up to and including their level. */
export const SENSITIVITY_LEVELS = ['standard', 'sensitive', 'restricted'] as const;
export type Sensitivity = (typeof SENSITIVITY_LEVELS)[number];

export const OPERATOR_STATUSES = ['invited', 'active', 'revoked'] as const;

/** `*` alone means every country; otherwise ISO 3166-1 alpha-2 codes. */
export const ALL_COUNTRIES = '*';
export const MAX_CLEARANCE_COUNTRIES = 250;

export interface Clearance {
  role: OperatorRole;
  countries: readonly string[];
  sensitivity: Sensitivity;
}

export function sensitivityRank(level: Sensitivity): number {
  return SENSITIVITY_LEVELS.indexOf(level);
}

export function coversCountry(clearance: Pick<Clearance, 'countries'>, country: string): boolean {
  return clearance.countries.includes(ALL_COUNTRIES) || clearance.countries.includes(country);
}

function coversSensitivity(clearance: Pick<Clearance, 'sensitivity'>, level: Sensitivity): boolean {
  return sensitivityRank(level) <= sensitivityRank(clearance.sensitivity);
}

/** True when the operator may see something of that country and sensitivity. */
export function withinClearance(clearance: Pick<Clearance, 'countries' | 'sensitivity'>, item: { country: string; sensitivity: Sensitivity }): boolean {
  return coversCountry(clearance, item.country) && coversSensitivity(clearance, item.sensitivity);
}

/**
 * What each role may do. `support` is the provider's staff: it reads only the cases a client
 * opened to it through a support access grant, never the queue.
 */
export const ROLE_ABILITIES = {
  /** See the queue, claim, correct and decide tasks within the clearance. */
  review: ['administrator', 'supervisor', 'reviewer'],
  /** Decide a task escalated after a double-validation disagreement. */
  arbitrate: ['administrator', 'supervisor'],
  /** Revise the decision of a decided case (the spec says supervisor only). */
  revise: ['supervisor'],
  /** Read indicators and alerts of the review activity. */
  metrics: ['administrator', 'supervisor'],
  /** Invite operators, change clearances, revoke, list operators with their clearance. */
  manageOperators: ['administrator'],
  /** Read names of the client's operators (every active operator). */
  directory: ['administrator', 'supervisor', 'reviewer', 'support'],
  /**
   * Read a case by its id (record, pieces, unmask): reviewers within their clearance, and the
   * provider's support accounts only for cases opened to them by a support grant in force.
   */
  readCase: ['administrator', 'supervisor', 'reviewer', 'support'],
  /** Open, list and close support grants (the client's oversight of the provider's staff). */
  grantSupport: ['administrator', 'supervisor'],
  /** List one's own support grants in force. */
  supportDesk: ['support'],
  /**
   * The client's integration settings through the console: API keys, webhook endpoints and their
   * deliveries, embedding origins, the journey's appearance. An integration key does the same
   * through the API without an operator.
   */
  manageIntegration: ['administrator'],
  /** Read the month's usage against the quotas, the integration calls and the contract. */
  readUsage: ['administrator', 'supervisor'],
  /** Read flows and their versions, and dry-run a draft on past cases. */
  readFlows: ['administrator', 'supervisor'],
  /** Create a flow version and activate it. */
  manageFlows: ['administrator'],
} as const satisfies Record<string, readonly OperatorRole[]>;
export type RoleAbility = keyof typeof ROLE_ABILITIES;

export function roleCan(role: OperatorRole, ability: RoleAbility): boolean {
  return (ROLE_ABILITIES[ability] as readonly OperatorRole[]).includes(role);
}

/** Countries of a clearance in canonical form: `*` alone, or sorted unique codes. */
export function normaliseCountries(countries: readonly string[]): string[] {
  if (countries.includes(ALL_COUNTRIES)) return [ALL_COUNTRIES];
  return [...new Set(countries)].sort();
}

/** An invitation is valid for seven days and consumed by the first resolve that presents it. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

/** How long a re-authentication proves the operator present (spec: "recently re-authenticated"). */
const REAUTH_MAX_AGE_S = 300;

/**
 * Whether an identity token's `auth_time` is recent at `nowS` (both Unix seconds). A time in the
 * future beyond the allowed clock skew is refused as well.
 */
export function reauthIsRecent(authTimeS: number, nowS: number, maxAgeS: number = REAUTH_MAX_AGE_S, skewS = 30): boolean {
  return authTimeS <= nowS + skewS && nowS - authTimeS <= maxAgeS;
}
