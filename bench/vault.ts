// bench:vault — the cost of sealing and opening personal data at rest, beside plain copying of
// the same bytes measured in the same run, so the overhead of encryption is visible; then the
// cost of keeping a sealed 2 MiB image in each blob store (BLOB_STORE): files under a directory
// (the baseline) against the database store on PostgreSQL (127.0.0.1:5432, a database of its own,
// dropped at the end) and on PGlite (on disk in a temporary directory).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBlobStore, PostgresBlobStore, type BlobStore } from '@idv/blobstore';
import { openDatabase } from '@idv/db';
import { CaseKey, LocalKeyWrapper, MasterKeyring, generateMasterKey, newCaseKeys, parseMasterKey } from '@idv/vault';
import { createPostgresDatabase } from '../tests/helpers/database.ts';

const IMAGE_BYTES = 2 * 1024 * 1024;
const caseData = {
  declared: { surname: 'Dupont-Moreau', given_names: 'Anne Sophie', birth_date: '1987-03-14' },
  entered: { surname: 'DUPONT MOREAU', given_names: 'Anne-Sophie', birth_date: '1987-03-14', email: 'anne@example.org' },
  read: {
    document_type: 'id_card', issuing_country: 'FRA', document_number: 'X4RTBPFW4', nationality: 'FRA',
    mrz: ['IDFRAX4RTBPFW46<<<<<<<<<<<<<<<', '8703146F3012310FRA<<<<<<<<<<<6', 'DUPONT<MOREAU<<ANNE<SOPHIE<<<<'],
  },
  questionnaire: { source_of_funds: 'salary', politically_exposed: 'no' },
};

/** Median and mean in microseconds of `fn` over `n` runs after a warm-up. */
function measure(n: number, fn: () => unknown): { median_us: number; mean_us: number } {
  for (let i = 0; i < Math.min(20, n); i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  samples.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return { median_us: round(samples[Math.floor(n / 2)]), mean_us: round(samples.reduce((a, b) => a + b, 0) / n) };
}

const wrapper = new LocalKeyWrapper(new MasterKeyring(parseMasterKey(generateMasterKey())));
const wrapped = await newCaseKeys(wrapper, 'case_bench');
const [data, bio] = await Promise.all(wrapped.map((k) => CaseKey.unwrap(wrapper, 'case_bench', k)));
const image = randomBytes(IMAGE_BYTES);
const sealedImage = bio.seal(image, 'piece:pc_bench');
const sealedData = data.sealJson(caseData, 'data');
const json = JSON.stringify(caseData);

const unwrapTimes: number[] = [];
for (let i = 0; i < 200; i++) {
  const t0 = process.hrtime.bigint();
  await CaseKey.unwrap(wrapper, 'case_bench', wrapped[0]);
  unwrapTimes.push(Number(process.hrtime.bigint() - t0) / 1000);
}
unwrapTimes.sort((a, b) => a - b);

const figures = {
  image_bytes: IMAGE_BYTES,
  image_copy: measure(200, () => Buffer.from(image)),
  image_encrypt: measure(200, () => bio.seal(image, 'piece:pc_bench')),
  image_decrypt: measure(200, () => bio.open(sealedImage, 'piece:pc_bench')),
  case_data_bytes: Buffer.byteLength(json),
  case_data_copy: measure(5000, () => JSON.parse(JSON.stringify(caseData))),
  case_data_encrypt: measure(5000, () => data.sealJson(caseData, 'data')),
  case_data_decrypt: measure(5000, () => data.openJson(sealedData, 'data')),
  data_key_unwrap_median_us: Math.round(unwrapTimes[100] * 10) / 10,
};
const ratio = (a: { median_us: number }, b: { median_us: number }) => Math.round((a.median_us / b.median_us) * 100) / 100;

/** Median ms of each put (a new id each time, as a piece is) and of each get of what was put, and MB/s at that median. */
async function storeFigures(store: BlobStore, bytes: Buffer, n: number): Promise<{ put_ms: number; get_ms: number; put_mb_s: number; get_mb_s: number }> {
  const ids = Array.from({ length: n + 3 }, (_, i) => `pc_bench_${i}_${randomBytes(4).toString('hex')}`);
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const puts: number[] = [];
  const gets: number[] = [];
  for (const [i, id] of ids.entries()) {
    const ms = await timed(() => store.put(id, bytes));
    if (i >= 3) puts.push(ms); // the first three warm up
  }
  for (const [i, id] of ids.entries()) {
    let got: Buffer | null = null;
    const ms = await timed(async () => (got = await store.get(id)));
    if (!(got as Buffer | null)?.equals(bytes)) throw new Error(`the blob store gave back other bytes for ${id}`);
    if (i >= 3) gets.push(ms);
  }
  for (const id of ids) await store.delete(id);
  const round = (x: number) => Math.round(x * 100) / 100;
  const mbs = (ms: number) => round(bytes.length / 1e6 / (ms / 1000));
  return { put_ms: round(median(puts)), get_ms: round(median(gets)), put_mb_s: mbs(median(puts)), get_mb_s: mbs(median(gets)) };
}

const STORE_RUNS = 30;
const scratch = mkdtempSync(join(tmpdir(), 'idv-bench-blobs-'));
const pgTarget = await createPostgresDatabase();
let blobStores: Record<'file' | 'postgres' | 'pglite', Awaited<ReturnType<typeof storeFigures>>>;
try {
  const file = await storeFigures(new FileBlobStore(join(scratch, 'files')), sealedImage, STORE_RUNS);
  const pgDb = await openDatabase({ kind: 'postgres', url: pgTarget.url, poolSize: 2 });
  const postgres = await storeFigures(new PostgresBlobStore(pgDb.db), sealedImage, STORE_RUNS).finally(() => pgDb.close());
  const liteDb = await openDatabase({ kind: 'pglite', dataDir: join(scratch, 'pglite') });
  const pglite = await storeFigures(new PostgresBlobStore(liteDb.db), sealedImage, STORE_RUNS).finally(() => liteDb.close());
  blobStores = { file, postgres, pglite };
} finally {
  await pgTarget.dropDb();
  rmSync(scratch, { recursive: true, force: true });
}
const overFile = (kind: 'postgres' | 'pglite', op: 'put_ms' | 'get_ms') => Math.round((blobStores[kind][op] / blobStores.file[op]) * 100) / 100;

const result = {
  ...figures,
  image_encrypt_over_copy: ratio(figures.image_encrypt, figures.image_copy),
  image_decrypt_over_copy: ratio(figures.image_decrypt, figures.image_copy),
  case_data_encrypt_over_copy: ratio(figures.case_data_encrypt, figures.case_data_copy),
  case_data_decrypt_over_copy: ratio(figures.case_data_decrypt, figures.case_data_copy),
  sealed_image_bytes: sealedImage.length,
  blob_store_file: blobStores.file,
  blob_store_postgres: blobStores.postgres,
  blob_store_pglite: blobStores.pglite,
  blob_put_postgres_over_file: overFile('postgres', 'put_ms'),
  blob_get_postgres_over_file: overFile('postgres', 'get_ms'),
  blob_put_pglite_over_file: overFile('pglite', 'put_ms'),
  blob_get_pglite_over_file: overFile('pglite', 'get_ms'),
};

console.log('AES-256-GCM with a per-case data key (median µs over the runs; copy = same bytes without encryption)');
console.log(`  2 MiB image      copy ${figures.image_copy.median_us} µs   encrypt ${figures.image_encrypt.median_us} µs (x${result.image_encrypt_over_copy})   decrypt ${figures.image_decrypt.median_us} µs (x${result.image_decrypt_over_copy})`);
console.log(`  case data ${figures.case_data_bytes} B  copy ${figures.case_data_copy.median_us} µs   encrypt ${figures.case_data_encrypt.median_us} µs (x${result.case_data_encrypt_over_copy})   decrypt ${figures.case_data_decrypt.median_us} µs (x${result.case_data_decrypt_over_copy})`);
console.log(`  unwrap a case data key (local master key): ${figures.data_key_unwrap_median_us} µs`);
console.log(`Blob stores, a sealed ${sealedImage.length} B image (median ms over ${STORE_RUNS} puts of new ids and ${STORE_RUNS} gets; ratio to the file store)`);
for (const kind of ['file', 'postgres', 'pglite'] as const) {
  const f = blobStores[kind];
  const ratios = kind === 'file' ? '' : `   (put x${overFile(kind, 'put_ms')}, get x${overFile(kind, 'get_ms')})`;
  console.log(`  ${kind.padEnd(8)} put ${f.put_ms} ms (${f.put_mb_s} MB/s)   get ${f.get_ms} ms (${f.get_mb_s} MB/s)${ratios}`);
}
console.log(JSON.stringify(result));
