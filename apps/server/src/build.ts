import { writePgliteTemplate } from '@idv/db';
import { bundleServer } from './bundle.ts';
import { SERVER_DIST } from './dist.ts';

/**
 * `npm run build:server` (part of `npm run build`, which `npm start` runs first): the service's
 * bundle, which `npm run serve` runs (bundle.ts), and the template of a new embedded database
 * (a migrated PGlite data directory) that a first start copies instead of migrating one
 * (@idv/db's pglite-template.ts). Seconds when the migrations changed, about one otherwise.
 */
const entry = await bundleServer({ prune: true });
const template = await writePgliteTemplate(SERVER_DIST);
console.log(`server bundle ${entry}; embedded database template ${template}`);
