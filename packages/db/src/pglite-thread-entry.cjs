// The database thread's entry (see pglite-remote.ts). A worker's entry must be JavaScript; it
// requires the TypeScript module through the loader the process runs with (tsx), as piscina
// loads its task files (in a worker, tsx's require hook is in place from the start, its import
// hook not yet on Node 20).
require('./pglite-thread.ts');
