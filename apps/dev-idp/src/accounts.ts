import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The development provider's accounts: a JSON file under its data directory, passwords hashed
 * with scrypt (never kept in clear). Development only: no lockout, no rate limit.
 */
export interface Account {
  /** The stable, opaque subject (`sub` of the ID token); never the login. */
  subject: string;
  login: string;
  /** `scrypt$<N>$<salt b64>$<hash b64>` */
  passwordHash: string;
}

const SCRYPT_N = 16_384;
const KEY_LENGTH = 32;
/** Limits on what the sign-in form accepts, before any hashing. */
export const MAX_LOGIN = 200;
export const MAX_PASSWORD = 1_000;

export class AccountFile {
  readonly path: string;
  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'accounts.json');
  }

  private read(): Account[] {
    if (!existsSync(this.path)) return [];
    return JSON.parse(readFileSync(this.path, 'utf8')) as Account[];
  }

  private write(accounts: Account[]): void {
    // Written aside then renamed, so a crash never leaves half a file.
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(accounts, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.path);
  }

  /** Adds an account (or sets a new password on an existing login) and returns its subject. */
  add(login: string, password: string): string {
    if (!login || login.length > MAX_LOGIN) throw new Error(`login must be 1 to ${MAX_LOGIN} characters`);
    if (password.length < 8 || password.length > MAX_PASSWORD) throw new Error(`password must be 8 to ${MAX_PASSWORD} characters`);
    const accounts = this.read();
    const existing = accounts.find((a) => a.login === login);
    const passwordHash = hashPassword(password);
    if (existing) {
      existing.passwordHash = passwordHash;
      this.write(accounts);
      return existing.subject;
    }
    const subject = randomUUID();
    accounts.push({ subject, login, passwordHash });
    this.write(accounts);
    return subject;
  }

  find(subject: string): Account | null {
    return this.read().find((a) => a.subject === subject) ?? null;
  }

  /** The account when login and password match; the hash is computed even for an unknown login. */
  verify(login: string, password: string): Account | null {
    if (login.length > MAX_LOGIN || password.length > MAX_PASSWORD) return null;
    const account = this.read().find((a) => a.login === login);
    const ok = verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
    return account && ok ? account : null;
  }
}

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, KEY_LENGTH, { N: SCRYPT_N });
  return `scrypt$${SCRYPT_N}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

function verifyPassword(password: string, stored: string): boolean {
  const [scheme, n, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const got = scryptSync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n) });
  return timingSafeEqual(got, expected);
}

/** Verified against when the login is unknown, so both cases take the same time. */
const DUMMY_HASH = hashPassword(randomBytes(16).toString('hex'));
