import type { ValidateFunction } from 'ajv';

type Validator = ((data: unknown) => boolean) & { errors: ValidateFunction['errors'] };

/** The validators of each app not compiled yet: compileEveryValidator compiles them. */
const pending = new WeakMap<object, Set<() => void>>();

/**
 * A route part's validator compiled at its first request instead of when the app is built.
 * Compiling every route's schemas with Ajv took about a second of CPU at each start of the service
 * and in every test file, for routes most test files never call; the first request to a route
 * pays its own (milliseconds). Fastify reads `errors` from the function it was given, so the
 * compiled validator's errors are copied onto it after each call.
 */
export function lazyValidator(app: object, compile: () => ValidateFunction): Validator {
  let validate: ValidateFunction | null = null;
  const waiting = pending.get(app) ?? new Set();
  pending.set(app, waiting);
  const ensure = () => {
    validate ??= compile();
    waiting.delete(ensure);
    return validate;
  };
  waiting.add(ensure);
  const lazy: Validator = Object.assign(
    (data: unknown) => {
      const compiled = ensure();
      const valid = compiled(data) as boolean;
      lazy.errors = compiled.errors;
      return valid;
    },
    { errors: null },
  );
  return lazy;
}

/**
 * Compiles every validator of the app not compiled yet and returns how many: a schema Ajv refuses
 * throws here rather than at a route's first request (tests/api/errors.test.ts).
 */
export function compileEveryValidator(app: object): number {
  const waiting = [...(pending.get(app) ?? [])];
  for (const ensure of waiting) ensure();
  return waiting.length;
}
