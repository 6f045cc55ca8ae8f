import { mkdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  createClient,
  findClient,
  listClients,
  listFlows,
  openDatabase,
  revokeApiKey,
  type Database,
  type Environment,
  type KeyKind,
  type Permission,
} from '@idv/db';
import { ApiError, FLOW_NAME_PATTERN, FLOW_TEMPLATES, FLOW_TEMPLATE_NAMES, validateFlowDefinition } from '@idv/domain';
import { LocalKeyWrapper, MasterKeyring } from '@idv/vault';
import { ConfigError, loadConfig, localMasterKey } from '@idv/config';
import { issueApiKey } from '../services/api-keys.ts';
import { CaseVault } from '@idv/case-data';
import { rotateMasterKey } from '../services/key-rotation.ts';
import { activateVersion, createVersion } from '../services/flows.ts';
import { CONTRACT_USAGE, contractCommand } from './contract.ts';
import { UsageError, oneOf, required } from './usage-error.ts';

const USAGE = `Administration of the service (works on the embedded database in DATA_DIR, or on DATABASE_URL).
With the embedded database, stop the service first: PGlite allows one process.

  npm run admin -- client create --name <name>
  npm run admin -- client list
  npm run admin -- key create --client <cli_…> --environment sandbox|prod [--permissions personal_data,decisions]
                              [--name <label>] [--kind integration|console]
  npm run admin -- key revoke --client <cli_…> --environment sandbox|prod --key <key_…>
                                                    any key, a console credential too (the API refuses those)
  npm run admin -- flow template [<template>]       prints a template's definition (standard unless named: ${FLOW_TEMPLATE_NAMES.join(', ')}), to copy and edit
  npm run admin -- flow create --client <cli_…> --environment sandbox|prod --name <flow> --file <definition.json> [--activate]
  npm run admin -- flow activate --client <cli_…> --environment sandbox|prod --name <flow> --version <n>
  npm run admin -- flow list --client <cli_…> --environment sandbox|prod
  npm run admin -- keys status                      counts values still sealed or wrapped under an old master key
  npm run admin -- keys rewrap [--batch <n>]        re-wraps case and face index keys, re-seals secrets under MASTER_KEY (the old
                                                    key must be in MASTER_KEYS_PREVIOUS); safe while the service runs
                                                    on PostgreSQL; see docs/personal-data.md
${CONTRACT_USAGE}

Secrets of a new key are printed once, as JSON; only their hash (and the sealed signing secret) are kept. A console
credential has no signing secret: it acts for operators only, and signs nothing.`;

const ENVIRONMENTS: Environment[] = ['sandbox', 'prod'];
const PERMISSIONS: Permission[] = ['personal_data', 'decisions'];
const KINDS: KeyKind[] = ['integration', 'console'];
/** The actor the client journal names for changes made with this command. */
const ADMIN = 'admin';

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  const { positionals, values } = parseOrExplain(argv);
  const [noun, verb] = positionals;
  if (values.help || !noun) throw new UsageError('');
  if (noun === 'flow' && verb === 'template') {
    const name = positionals[2] ?? 'standard';
    if (!(FLOW_TEMPLATE_NAMES as string[]).includes(name)) throw new UsageError(`Unknown template ${name}: one of ${FLOW_TEMPLATE_NAMES.join(', ')}.`);
    return FLOW_TEMPLATES[name as keyof typeof FLOW_TEMPLATES];
  }

  const config = loadConfig(env);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const masterKey = config.masterKey ?? localMasterKey(config.dataDir).key;
  const keyring = new MasterKeyring(masterKey, config.previousMasterKeys);
  const database = await openDatabase(
    config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl, poolSize: 2 } : { kind: 'pglite', dataDir: config.dataDir },
  );
  try {
    return await run(database, keyring, noun, verb, values);
  } finally {
    await database.close();
  }
}

function parseOrExplain(argv: string[]) {
  try {
    return parse(argv);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      client: { type: 'string' },
      environment: { type: 'string' },
      permissions: { type: 'string' },
      kind: { type: 'string' },
      key: { type: 'string' },
      file: { type: 'string' },
      version: { type: 'string' },
      activate: { type: 'boolean' },
      batch: { type: 'string' },
      service: { type: 'string' },
      offer: { type: 'string' },
      quota: { type: 'string' },
      'over-quota': { type: 'string' },
      starts: { type: 'string' },
      ends: { type: 'string' },
      subscription: { type: 'string' },
      at: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}

async function run(
  { db }: Database,
  keyring: MasterKeyring,
  noun: string,
  verb: string | undefined,
  values: Record<string, string | boolean | undefined>,
): Promise<unknown> {
  const str = (k: string) => values[k] as string | undefined;
  const now = new Date();
  const tenant = async () => {
    const clientId = required('client', str('client'));
    if (!(await findClient(db, clientId))) throw new UsageError(`no client ${clientId}`);
    return { clientId, environment: oneOf('environment', str('environment'), ENVIRONMENTS) };
  };
  if (noun === 'contract') return contractCommand(db, verb, str, now);
  switch (`${noun} ${verb}`) {
    case 'client create':
      return createClient(db, required('name', str('name')), now);
    case 'client list':
      return listClients(db);
    case 'key create': {
      const t = await tenant();
      const permissions = (str('permissions') ?? '').split(',').filter(Boolean).map((p) => oneOf('permissions', p, PERMISSIONS));
      const kind = str('kind') ? oneOf('kind', str('kind'), KINDS) : 'integration';
      const key = await issueApiKey(db, keyring, { ...t, kind, name: str('name'), permissions, createdBy: 'admin', now });
      // A console credential has no signing secret to print: it signs nothing (docs/operators.md).
      const signing = key.signingSecret === null ? {} : { signing_secret: key.signingSecret };
      return { id: key.row.id, environment: key.row.environment, kind, permissions: key.row.permissions, secret: key.secret, ...signing };
    }
    case 'key revoke': {
      const t = await tenant();
      const id = required('key', str('key'));
      if (!(await revokeApiKey(db, t, id, now))) throw new UsageError(`no key ${id} for that client and environment`);
      return { id, revoked: true };
    }
    case 'flow create': {
      const t = await tenant();
      const name = required('name', str('name'));
      if (!new RegExp(FLOW_NAME_PATTERN).test(name)) throw new UsageError('--name must be lower case letters, digits, _ or -');
      const definition: unknown = JSON.parse(readFileSync(required('file', str('file')), 'utf8'));
      // Every problem at once here (the API names the first); the service checks again.
      const problems = validateFlowDefinition(definition);
      if (problems.length) throw new UsageError(`the flow definition is invalid:\n  ${problems.join('\n  ')}`);
      const row = await db.transaction((tx) => createVersion(tx, t, { name, definition, activate: Boolean(values.activate), actor: ADMIN, now }));
      return { id: row.id, name: row.name, version: row.version, status: row.status };
    }
    case 'flow activate': {
      const t = await tenant();
      const version = Number(required('version', str('version')));
      if (!Number.isInteger(version) || version < 1) throw new UsageError('--version must be a positive integer');
      const row = await db
        .transaction((tx) => activateVersion(tx, t, { name: required('name', str('name')), version, actor: ADMIN, now }))
        .catch((err: unknown) => {
          throw err instanceof ApiError ? new UsageError(err.message) : err;
        });
      return { id: row.id, name: row.name, version: row.version, status: row.status };
    }
    case 'keys status':
    case 'keys rewrap': {
      const batch = str('batch') ? Number(str('batch')) : 500;
      if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) throw new UsageError('--batch must be an integer from 1 to 10000');
      const wrapper = new LocalKeyWrapper(keyring);
      return rotateMasterKey(db, keyring, wrapper, new CaseVault(wrapper), { dryRun: verb === 'status', batchSize: batch });
    }
    case 'flow list':
      return (await listFlows(db, await tenant())).map((f) => ({ id: f.id, name: f.name, version: f.version, status: f.status }));
    default:
      throw new UsageError(`unknown command: ${noun} ${verb ?? ''}`);
  }
}

/** What one run of the admin command printed and its exit status (0, or 2 on any error). */
export interface AdminRun {
  code: 0 | 2;
  /** The result as indented JSON, on success. */
  out: string;
  /** The error and, for a wrong command line, the usage text. */
  err: string;
}

/**
 * One run of `npm run admin -- <argv>` with the variables of `env`: what the command line prints
 * and exits with (cli.ts writes them out), callable in a process that already runs, such as tests.
 */
export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<AdminRun> {
  try {
    return { code: 0, out: `${JSON.stringify(await main(argv, env), null, 2)}\n`, err: '' };
  } catch (err) {
    if (err instanceof UsageError) return { code: 2, out: '', err: `${err.message ? `error: ${err.message}\n\n` : ''}${USAGE}\n` };
    if (err instanceof ConfigError) return { code: 2, out: '', err: `${err.message}\n` };
    return { code: 2, out: '', err: `error: ${err instanceof Error ? err.message : err}\n` };
  }
}
