import { loadConfigOrExit } from '@idv/config';

/**
 * The entry of `npm start` and `npm run api`: the command line and the configuration are checked
 * first, and only then are the service's modules loaded (the API, the worker and its checks, the
 * database drivers: seconds of CPU), so a mistyped argument or variable is refused in half a
 * second. The service itself is service.ts.
 */
async function main(): Promise<void> {
  const { apiOnly, withoutConsole } = parseArgs(process.argv.slice(2));
  const config = loadConfigOrExit();
  const { runService } = await import('./service.ts');
  await runService(config, apiOnly, withoutConsole);
}

const OPTIONS = ['--api-only', '--without-console'];

/**
 * `--api-only`: the API without the worker, the journey and the docs servers; `--without-console`:
 * without the console and its development identity provider. Anything else is refused rather than ignored.
 */
function parseArgs(args: string[]): { apiOnly: boolean; withoutConsole: boolean } {
  const unknown = args.filter((arg) => !OPTIONS.includes(arg));
  if (unknown.length) {
    console.error(
      `unknown argument ${unknown[0]}: the options are --api-only (the API without the worker, the journey and the docs servers) and --without-console (no console nor development identity provider)`,
    );
    process.exit(1);
  }
  return { apiOnly: args.includes('--api-only'), withoutConsole: args.includes('--without-console') };
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
