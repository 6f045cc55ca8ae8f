import type { FastifySchema, RouteOptions } from 'fastify';

/**
 * What the OpenAPI document cannot say with its security schemes alone: which routes take the
 * console credential (operator-bound routes, and resolve), whether they name an operator in
 * X-Service-Operator, with which role ability, and whether they need a recent re-authentication.
 * Written as the `x-console` extension of the operation, read by the code-sample generator
 * (scripts/code-samples) so that each sample carries the credential its route really takes.
 */
interface ConsoleCredentialExtension {
  /** X-Service-Operator names an active operator of the client. */
  operator: boolean;
  ability?: string;
  /** X-Service-Reauthenticated-At carries a recent ID token of that operator. */
  reauth?: boolean;
  /** An integration key is also accepted (then without an operator). */
  api_key: boolean;
}

/** The swagger plugin's `transform`: the route's schema with `x-console` added where it applies. */
export function withConsoleExtension({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } {
  const config = route.config as { operator?: { ability: string; reauth?: boolean; alsoIntegration?: boolean }; console?: boolean } | undefined;
  if (!schema || (!config?.operator && !config?.console)) return { schema, url };
  const ext: ConsoleCredentialExtension = config.operator
    ? { operator: true, ability: config.operator.ability, ...(config.operator.reauth ? { reauth: true } : {}), api_key: config.operator.alsoIntegration === true }
    : { operator: false, api_key: false };
  return { schema: { ...schema, 'x-console': ext } as FastifySchema, url };
}
