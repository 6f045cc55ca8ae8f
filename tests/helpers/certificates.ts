import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real X.509 certificates for the tests, made by the system's openssl (`openssl ca`, which takes
 * any validity dates, past ones included; P-256 keys): a CA (an IACA root), a leaf a CA signs (a
 * document signer, or an SD-JWT VC issuer's own certificate), a self-signed leaf, and their keys.
 */
export interface MadeCertificate {
  pem: string;
  keyPem: string;
}

export interface CertificateSpec {
  /** As openssl writes it: /C=FR/O=…/CN=… */
  subject: string;
  /** Basic constraints CA:TRUE with keyCertSign; otherwise CA:FALSE with digitalSignature. Default true. */
  ca?: boolean;
  /** Signed by this certificate's key; self-signed when absent. */
  issuer?: MadeCertificate;
  /** Default: a day ago. */
  notBefore?: Date;
  /** Default: `days` (365) from now. */
  notAfter?: Date;
  days?: number;
}

const CONFIG = (ca: boolean) => `[req]
distinguished_name=dn
[dn]
[ca]
default_ca=own
[own]
database=index.txt
new_certs_dir=.
serial=serial
default_md=sha256
policy=any
x509_extensions=ext
unique_subject=no
[any]
countryName=optional
organizationName=optional
commonName=supplied
[ext]
${ca ? 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign' : 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature'}
subjectKeyIdentifier=hash
`;

/** openssl's GeneralizedTime: YYYYMMDDHHMMSSZ. */
const asn1Time = (d: Date) => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
const DAY_MS = 86_400_000;

export function makeCertificate(spec: CertificateSpec): MadeCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'idv-cert-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    writeFileSync(join(dir, 'openssl.cnf'), CONFIG(spec.ca ?? true));
    writeFileSync(join(dir, 'index.txt'), '');
    // A random positive serial, an even number of hex digits as openssl wants.
    writeFileSync(join(dir, 'serial'), `01${randomBytes(8).toString('hex')}\n`);
    run(['req', '-new', '-config', 'openssl.cnf', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', spec.subject]);
    const now = Date.now();
    const notBefore = spec.notBefore ?? new Date(now - DAY_MS);
    const notAfter = spec.notAfter ?? new Date(now + (spec.days ?? 365) * DAY_MS);
    const signer = spec.issuer ? (writeFileSync(join(dir, 'ca.pem'), spec.issuer.pem), writeFileSync(join(dir, 'ca.key'), spec.issuer.keyPem), ['-cert', 'ca.pem', '-keyfile', 'ca.key']) : ['-selfsign', '-keyfile', 'k.pem'];
    run(['ca', '-batch', '-config', 'openssl.cnf', ...signer, '-in', 'r.csr', '-startdate', asn1Time(notBefore), '-enddate', asn1Time(notAfter), '-notext', '-out', 'c.pem']);
    return { pem: readFileSync(join(dir, 'c.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'k.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A self-signed certificate, a CA unless `ca` is false. */
export const selfSigned = (subject: string, opts: Omit<CertificateSpec, 'subject' | 'issuer'> = {}) => makeCertificate({ subject, ...opts });

/** A leaf certificate (CA:FALSE) signed by `issuer`. */
export const signedBy = (issuer: MadeCertificate, subject: string, opts: Omit<CertificateSpec, 'subject' | 'issuer' | 'ca'> = {}) =>
  makeCertificate({ subject, issuer, ca: false, ...opts });
