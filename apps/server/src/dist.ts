import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build:server` writes the service's bundle (bundle.ts) and the embedded database's template (build.ts). */
export const SERVER_DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
