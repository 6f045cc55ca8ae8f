import { resolve, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDevIdp, DEFAULT_IDP_URL } from './index.ts';
import { AccountFile } from './accounts.ts';

/**
 * `npm run dev-idp` runs the development provider alone; `npm run dev-idp -- add-account <login>`
 * adds an account (password from DEV_IDP_PASSWORD, or generated and printed once).
 * Reads IDP_URL, CONSOLE_URL and DATA_DIR (accounts and keys in DATA_DIR/dev-idp).
 */
const dir = join(resolve(process.env.DATA_DIR || './.data'), 'dev-idp');
const [command, login] = process.argv.slice(2);

if (command === 'add-account') {
  if (!login) {
    console.error('usage: npm run dev-idp -- add-account <login>');
    process.exit(2);
  }
  const password = process.env.DEV_IDP_PASSWORD || randomBytes(12).toString('base64url');
  const subject = new AccountFile(dir).add(login, password);
  console.log(JSON.stringify({ login, subject, ...(process.env.DEV_IDP_PASSWORD ? {} : { password }) }));
} else {
  createDevIdp({ issuer: process.env.IDP_URL || DEFAULT_IDP_URL, dataDir: dir, consoleUrl: process.env.CONSOLE_URL || 'http://localhost:8082', host: process.env.HOST })
    .then((idp) => console.log(`development identity provider at ${idp.issuer} (client ${idp.clientId})`))
    .catch((err: Error) => {
      console.error(err.message);
      process.exit(1);
    });
}
