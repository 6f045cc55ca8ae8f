/** A wrong command line: the admin command prints the message and its usage text, and exits with 2. */
export class UsageError extends Error {}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T {
  if (!value || !allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function required(name: string, value: string | undefined): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}
