import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real X.509 certificates for the tests, made by the system's openssl (P-256 keys): a CA (an IACA
 * root), a leaf it signs (a document signer, or an SD-JWT VC issuer's own certificate), and the
 * private keys. Validity counts from the real time; tests that need an expired certificate move
 * the service's clock past it.
 */
export interface MadeCertificate {
  pem: string;
  keyPem: string;
}

/** No default extensions: each certificate carries exactly the ones asked for. */
const MIN_CONFIG = '[req]\ndistinguished_name=dn\n[dn]\n';

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'idv-cert-'));
  try {
    writeFileSync(join(dir, 'min.cnf'), MIN_CONFIG);
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** A self-signed certificate: a CA (basic constraints CA:TRUE, keyCertSign) unless `ca` is false. */
export function selfSigned(subject: string, opts: { days?: number; ca?: boolean } = {}): MadeCertificate {
  const ca = opts.ca ?? true;
  return inTempDir((dir) => {
    const ext = ca
      ? ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']
      : ['-addext', 'basicConstraints=critical,CA:FALSE', '-addext', 'keyUsage=critical,digitalSignature'];
    openssl(dir, ['req', '-x509', '-config', 'min.cnf', ...EC, '-keyout', 'k.pem', '-out', 'c.pem', '-days', String(opts.days ?? 365), '-subj', subject, ...ext]);
    return { pem: readFileSync(join(dir, 'c.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'k.pem'), 'utf8') };
  });
}

/** A leaf certificate (CA:FALSE) signed by `issuer`. */
export function signedBy(issuer: MadeCertificate, subject: string, opts: { days?: number } = {}): MadeCertificate {
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'ca.pem'), issuer.pem);
    writeFileSync(join(dir, 'ca.key'), issuer.keyPem);
    writeFileSync(join(dir, 'leaf.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n');
    openssl(dir, ['req', '-new', '-config', 'min.cnf', ...EC, '-keyout', 'k.pem', '-out', 'r.csr', '-subj', subject]);
    openssl(dir, ['x509', '-req', '-in', 'r.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(opts.days ?? 365), '-extfile', 'leaf.ext', '-out', 'c.pem']);
    return { pem: readFileSync(join(dir, 'c.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'k.pem'), 'utf8') };
  });
}
