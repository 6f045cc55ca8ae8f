import { loadConfigOrExit } from '@idv/config';

/**
 * The entry of `npm start` and `npm run api`: the command line and the configuration are checked
 * first, and only then are the service's modules loaded (the API, the worker and its checks, the
 * database drivers: seconds of CPU), so a mistyped argument or variable is refused in half a
 * second. The service itself is service.ts.
 */
async function main(): Promise<void> {
  const apiOnly = parseArgs(process.argv.slice(2));
  const config = loadConfigOrExit();
  const { runService } = await import('./service.ts');
  await runService(config, apiOnly);
}

/** True for `--api-only`; anything else on the command line is refused rather than ignored. */
function parseArgs(args: string[]): boolean {
  const unknown = args.filter((arg) => arg !== '--api-only');
  if (unknown.length) {
    console.error(`unknown argument ${unknown[0]}: the only option is --api-only (the API without the worker, the journey and the docs servers)`);
    process.exit(1);
  }
  return args.includes('--api-only');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
