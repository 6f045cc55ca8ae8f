import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { aeadOpen, aeadSeal } from './aead.ts';

/**
 * Secrets at rest sealed with AES-256-GCM under a master key from configuration. The sealed form
 * names the key that sealed it (`v1.<key id>.<iv|ciphertext|tag>`), so a new master key can be
 * introduced while values sealed under the previous ones still open (rotation without downtime).
 * The associated data binds a sealed value to its place (for example `api_key:<id>:signing`), so a
 * value copied into another row does not open.
 */
export class MasterKeyring {
  private readonly current: { id: string; key: Buffer };
  private readonly byId: Map<string, Buffer>;

  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    for (const k of [currentKey, ...previousKeys]) {
      if (k.length !== 32) throw new Error('a master key must be 32 bytes');
    }
    this.current = { id: keyId(currentKey), key: currentKey };
    this.byId = new Map([currentKey, ...previousKeys].map((k) => [keyId(k), k]));
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: Buffer | string, aad: string): string {
    return `v1.${this.current.id}.${aeadSeal(this.current.key, plaintext, aad).toString('base64url')}`;
  }

  /** True when the value was sealed under an older master key and should be re-sealed. */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.current.id;
  }

  open(sealed: string, aad: string): Buffer {
    const [version, id, payload] = sealed.split('.');
    if (version !== 'v1' || !id || !payload) throw new Error('not a sealed value');
    const key = this.byId.get(id);
    if (!key) throw new Error(`sealed under unknown master key ${id}`);
    return aeadOpen(key, Buffer.from(payload, 'base64url'), aad);
  }

  openText(sealed: string, aad: string): string {
    return this.open(sealed, aad).toString('utf8');
  }

  /**
   * A 256-bit key for one purpose (for example keyed content fingerprints), derived from the current
   * master key with HKDF-SHA256; `keyId` names the master key, so values made with it can say which.
   */
  derive(purpose: string): { keyId: string; key: Buffer } {
    return { keyId: this.current.id, key: Buffer.from(hkdfSync('sha256', this.current.key, Buffer.alloc(0), `idv:${purpose}`, 32)) };
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('idv-master-key-id').update(key).digest('hex').slice(0, 12);
}

/** Parses a base64 (standard or url-safe) master key and insists on 256 bits. */
export function parseMasterKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error('must be 32 bytes encoded in base64 (openssl rand -base64 32)');
  return key;
}

export function generateMasterKey(): string {
  return randomBytes(32).toString('base64');
}
