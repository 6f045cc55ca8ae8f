import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import { createConsoleServer } from '@idv/console';
import { loadAssets } from '@idv/console/load-assets';
import { createDevIdp, type DevIdp } from '@idv/dev-idp';
import type { DemoCredentials } from '@idv/api/bootstrap';
import { bootstrapConsole, readConsoleCredential } from '@idv/api/console-bootstrap';
import type { Config } from '@idv/config';

/** What startConsoleCompanions started: the addresses for the ready banner (null when not started). */
interface ConsoleCompanions {
  /** The development identity provider's issuer, when it runs. */
  idpUrl: string | null;
  /** Starts the console server (after the API listens); resolves with its address, or null when it cannot run. */
  listen(): Promise<string | null>;
  close(): Promise<void>;
}

/**
 * What `npm start` runs beside the service for the operator console: the development identity
 * provider (only when no OIDC_ISSUER is configured and NODE_ENV is not production; the service's
 * re-authentication check then points at it), and the console server on the port of CONSOLE_URL.
 * Called before the app is built (it may set config.reauth). The console credential comes from
 * CONSOLE_API_KEY, or from DATA_DIR/console-credential written at the first start.
 */
export async function startConsoleCompanions(
  config: Config,
  db: Db,
  keyring: MasterKeyring,
  log: FastifyBaseLogger,
  demo: DemoCredentials | null,
): Promise<ConsoleCompanions> {
  const settings = config.console;
  let idp: DevIdp | null = null;
  if (!config.reauth && !settings.production) {
    idp = await createDevIdp({ issuer: settings.idpUrl, dataDir: join(config.dataDir, 'dev-idp'), consoleUrl: config.consoleUrl, host: config.host });
    // REAUTH_MAX_AGE_S is read with the other OIDC_* variables, which are unset here: the spec's five minutes.
    config.reauth = { issuer: idp.issuer, jwksUrl: idp.jwksUrl, audience: idp.clientId, maxAgeS: 300 };
  }
  const closeIdp = async () => idp?.close();

  let credential = settings.apiKey || readConsoleCredential(config.dataDir);
  if (demo) {
    const made = await bootstrapConsole(db, keyring, { dataDir: config.dataDir, demo, consoleUrl: config.consoleUrl, now: new Date(), addAccount: idp ? idp.addAccount : null });
    credential = settings.apiKey || made.credential;
    if (made.console) console.log(`The console's demo administrator (shown once, kept in the same file):\n${JSON.stringify({ console: made.console }, null, 2)}`);
  }
  const oidc = idp
    ? { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret }
    : { issuer: config.reauth?.issuer ?? '', clientId: settings.clientId, clientSecret: settings.clientSecret, scopes: settings.scopes };
  const idpUrl = idp?.issuer ?? null;
  if (!credential || !oidc.issuer || !oidc.clientSecret) {
    log.warn('console not started: set CONSOLE_API_KEY and OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET (see docs/console.md)');
    return { idpUrl, listen: async () => null, close: closeIdp };
  }
  const consoleCredential = credential;
  let consoleServer: Awaited<ReturnType<typeof createConsoleServer>> | null = null;
  // The console server itself (its web app read, or bundled when the build is stale) waits for
  // listen(): the API is first to listen.
  const listen = async () => {
    consoleServer = await createConsoleServer({
      assets: await loadAssets(),
      apiBaseUrl: config.apiBaseUrl,
      consoleCredential,
      oidc,
      consoleUrl: config.consoleUrl,
      docsUrl: config.docsUrl,
      db,
      keyring,
      logger: log.child({ app: 'console' }),
      reauthMaxAgeS: config.reauth?.maxAgeS,
    });
    const server = consoleServer.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.listenPorts.console, config.host, resolve);
    });
    log.info({ console: config.consoleUrl, identityProvider: oidc.issuer, devIdp: Boolean(idp) }, 'console started');
    return config.consoleUrl;
  };
  return {
    idpUrl,
    listen,
    close: async () => {
      await consoleServer?.close();
      await closeIdp();
    },
  };
}
