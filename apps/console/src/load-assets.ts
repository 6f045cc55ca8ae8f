/** The web app's bundle, built in memory at start by esbuild (apps/console/src/build.ts). */
export { loadConsoleAssets as loadAssets } from './build.ts';
