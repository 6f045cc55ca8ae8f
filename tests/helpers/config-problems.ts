import { ConfigError, loadConfig } from '@idv/config';

/** The problems loadConfig reports for an environment (none: it starts). */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}
