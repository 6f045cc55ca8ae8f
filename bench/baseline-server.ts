/**
 * The baseline of `npm run bench:api`: a bare Fastify route doing one INSERT into the same kind of
 * database as the service (PGlite in DATA_DIR, or PostgreSQL at DATABASE_URL with the service's
 * pool size), no auth, no validation, no logging. Started as its own process by bench/api.ts.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

const TABLE = `CREATE TABLE IF NOT EXISTS bench_baseline (
  id text PRIMARY KEY, flow_name text NOT NULL, country text NOT NULL, external_ref text, created_at timestamptz NOT NULL)`;
const INSERT = 'INSERT INTO bench_baseline (id, flow_name, country, external_ref, created_at) VALUES ($1, $2, $3, $4, $5)';

type Insert = (values: unknown[]) => Promise<unknown>;

async function connect(): Promise<{ insert: Insert; close: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    // The service's pool size (openDatabase's default), so both hold the same number of connections.
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    await pool.query(TABLE);
    return { insert: (values) => pool.query(INSERT, values), close: () => pool.end() };
  }
  const dataDir = process.env.DATA_DIR;
  if (!dataDir) throw new Error('DATA_DIR or DATABASE_URL is required');
  const db = await PGlite.create(join(dataDir, 'pgdata'));
  await db.query(TABLE);
  return { insert: (values) => db.query(INSERT, values), close: () => db.close() };
}

async function main(): Promise<void> {
  const database = await connect();
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.get('/readyz', async () => ({ status: 'ready' }));
  app.post('/v1/cases', async (req, reply) => {
    const body = req.body as { flow_name: string; country: string; external_ref?: string };
    const row = { id: randomUUID(), flow_name: body.flow_name, country: body.country, external_ref: body.external_ref ?? null, created_at: new Date() };
    await database.insert([row.id, row.flow_name, row.country, row.external_ref, row.created_at]);
    return reply.code(201).send(row);
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  const stop = async () => {
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
