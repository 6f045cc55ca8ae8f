// bench:vault — the cost of sealing and opening personal data at rest, beside plain copying of
// the same bytes measured in the same run, so the overhead of encryption is visible.
import { randomBytes } from 'node:crypto';
import { CaseKey, LocalKeyWrapper, MasterKeyring, generateMasterKey, newCaseKeys, parseMasterKey } from '@idv/vault';

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
const result = {
  ...figures,
  image_encrypt_over_copy: ratio(figures.image_encrypt, figures.image_copy),
  image_decrypt_over_copy: ratio(figures.image_decrypt, figures.image_copy),
  case_data_encrypt_over_copy: ratio(figures.case_data_encrypt, figures.case_data_copy),
  case_data_decrypt_over_copy: ratio(figures.case_data_decrypt, figures.case_data_copy),
};

console.log('AES-256-GCM with a per-case data key (median µs over the runs; copy = same bytes without encryption)');
console.log(`  2 MiB image      copy ${figures.image_copy.median_us} µs   encrypt ${figures.image_encrypt.median_us} µs (x${result.image_encrypt_over_copy})   decrypt ${figures.image_decrypt.median_us} µs (x${result.image_decrypt_over_copy})`);
console.log(`  case data ${figures.case_data_bytes} B  copy ${figures.case_data_copy.median_us} µs   encrypt ${figures.case_data_encrypt.median_us} µs (x${result.case_data_encrypt_over_copy})   decrypt ${figures.case_data_decrypt.median_us} µs (x${result.case_data_decrypt_over_copy})`);
console.log(`  unwrap a case data key (local master key): ${figures.data_key_unwrap_median_us} µs`);
console.log(JSON.stringify(result));
