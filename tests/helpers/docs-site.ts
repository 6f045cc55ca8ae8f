import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocsServer, loadDocsSite, type DocsSite } from '@idv/docs';
import { buildDocsSite, writeDocsSite } from '@idv/docs/build';

/** The documentation site built once into a folder of the test's own (never apps/docs/dist, which a started service may be reading), served on a free port. */
export interface ServedDocs {
  dir: string;
  site: DocsSite;
  url: string;
  buildMs: number;
  /** Sample blocks that say neither exec nor no-exec. */
  unmarked: string[];
  close(): Promise<void>;
}

export async function serveBuiltDocs(): Promise<ServedDocs> {
  const dir = join(mkdtempSync(join(tmpdir(), 'idv-docs-')), 'site');
  const built = await buildDocsSite();
  writeDocsSite(built, dir);
  const site = await loadDocsSite(dir);
  const server: Server = createDocsServer(site);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    dir,
    site,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    buildMs: built.ms,
    unmarked: built.unmarked,
    close: async () => {
      await new Promise((r) => server.close(r));
      rmSync(join(dir, '..'), { recursive: true, force: true });
    },
  };
}
