// `npm run serve` and `npm run api`: the service's bundle (bundle.ts), made again first when a
// source changed since `npm run build` made it (under a second), then run in this process with the
// command line's arguments (main.ts reads them). Run as `node --require tsx/cjs`: tsx's require
// hook loads bundle.ts here, and the TypeScript entries of the worker threads, which inherit it.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// Stack traces name the TypeScript sources, through the bundle's source maps.
process.setSourceMapsEnabled(true);
const require = createRequire(import.meta.url);
const { currentBundle, bundleServer } = require('./bundle.ts');
const entry = currentBundle() ?? (await bundleServer());
await import(pathToFileURL(entry).href);
