import type { Server } from 'node:http';
import type { Config } from '@idv/config';
import { findAppearanceLogo, findEmbedding, type Db } from '@idv/db';
import { addressesOf, createDocsServer, loadDocsSite } from '@idv/docs';
import { createJourneyServer, loadJourneyAssets } from '@idv/journey';

/** What a companion server is made from: the configuration read once and the database opened once. */
interface CompanionParts {
  config: Config;
  db: Db;
}

/**
 * A server beside the API, on an origin of its own: it listens on the port of its configured URL
 * (or the port set for it: JOURNEY_PORT, DOCS_PORT) and closes at shutdown. Adding one (the operator console at CONSOLE_URL, a development identity
 * provider) is one entry in COMPANIONS.
 */
export interface Companion {
  /** Its name in the start log. */
  name: string;
  url(config: Config): string;
  /** The port it listens on (config.listenPorts). */
  port(config: Config): number;
  create(parts: CompanionParts): Server | Promise<Server>;
}

/** Started in this order after the API, by `npm start` (not by `npm run api`). */
export const COMPANIONS: readonly Companion[] = [
  // The documentation site (built from the repository at start when missing or stale), with one
  // page per error code; its quick start shows this service's addresses.
  { name: 'docs', url: (config) => config.docsUrl, port: (config) => config.listenPorts.docs, create: async ({ config }) => createDocsServer(await loadDocsSite(undefined, addressesOf(config))) },
  // The hosted journey: its static app, framed only by the origins a client registered.
  {
    name: 'journey',
    url: (config) => config.journeyUrl,
    port: (config) => config.listenPorts.journey,
    create: async ({ config, db }) =>
      createJourneyServer({
        assets: await loadJourneyAssets(),
        apiBaseUrl: config.apiBaseUrl,
        embeddingOrigins: async (clientId, environment) => (await findEmbedding(db, { clientId, environment }))?.origins ?? [],
        logo: (clientId, environment, sha256) => findAppearanceLogo(db, { clientId, environment }, sha256),
        pseudoLocale: config.journeyPseudoLocale,
      }),
  },
];

/** Serves a companion on its port (journey, console and docs each have an origin). */
export async function listenOnPort(server: Server, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
