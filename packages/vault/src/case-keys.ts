import { randomBytes } from 'node:crypto';
import { aeadOpen, aeadSeal } from './aead.ts';
import type { KeyWrapper } from './key-wrapper.ts';

/**
 * Each case has its own data keys, one per class: `data` for what is read, declared, entered or
 * written about the person, `biometric` for portraits, selfies and face templates (the spec's
 * "portrait unsealed under a key distinct from the data key"). Destroying a case's wrapped keys
 * makes every copy of its data unreadable, backups included (crypto-shredding).
 */
const KEY_CLASSES = ['data', 'biometric'] as const;
export type KeyClass = (typeof KEY_CLASSES)[number];

export interface WrappedCaseKey {
  keyClass: KeyClass;
  wrapped: string;
}

const context = (caseId: string, keyClass: KeyClass) => `case:${caseId}:${keyClass}`;

/** A new data key of one class for a case, returned wrapped for storage. */
export async function newCaseKey(wrapper: KeyWrapper, caseId: string, keyClass: KeyClass): Promise<WrappedCaseKey> {
  return { keyClass, wrapped: await wrapper.wrap(randomBytes(32), context(caseId, keyClass)) };
}

/** New data keys of every class for a case. */
export function newCaseKeys(wrapper: KeyWrapper, caseId: string): Promise<WrappedCaseKey[]> {
  return Promise.all(KEY_CLASSES.map((keyClass) => newCaseKey(wrapper, caseId, keyClass)));
}

/** An unwrapped data key of one case and class; seals and opens values bound to a purpose. */
export class CaseKey {
  private constructor(
    private readonly key: Buffer,
    readonly caseId: string,
    readonly keyClass: KeyClass,
  ) {}

  static async unwrap(wrapper: KeyWrapper, caseId: string, k: WrappedCaseKey): Promise<CaseKey> {
    return new CaseKey(await wrapper.unwrap(k.wrapped, context(caseId, k.keyClass)), caseId, k.keyClass);
  }

  /** `purpose` names the field or blob (e.g. `declared`, `piece:pc_…`); it is bound as associated data. */
  seal(plaintext: Buffer | string, purpose: string): Buffer {
    return aeadSeal(this.key, plaintext, this.aad(purpose));
  }

  open(sealed: Buffer, purpose: string): Buffer {
    return aeadOpen(this.key, sealed, this.aad(purpose));
  }

  sealJson(value: unknown, purpose: string): string {
    return this.seal(JSON.stringify(value), purpose).toString('base64');
  }

  openJson<T>(sealed: string, purpose: string): T {
    return JSON.parse(this.open(Buffer.from(sealed, 'base64'), purpose).toString('utf8')) as T;
  }

  private aad(purpose: string): string {
    return `${this.caseId}:${this.keyClass}:${purpose}`;
  }
}

/** Re-wraps a key under the current master key (rotation without touching the data it protects). */
export async function rewrapCaseKey(wrapper: KeyWrapper, caseId: string, k: WrappedCaseKey): Promise<WrappedCaseKey> {
  const ctx = context(caseId, k.keyClass);
  return { keyClass: k.keyClass, wrapped: await wrapper.wrap(await wrapper.unwrap(k.wrapped, ctx), ctx) };
}
