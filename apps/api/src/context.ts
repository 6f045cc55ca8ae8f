import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { BlobStore } from '@idv/blobstore';
import type { Db } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import type { Config } from '@idv/config';
import type { CaseVault } from '@idv/case-data';
import type { IdempotencySettings } from './http/idempotent.ts';
import type { ImageViews } from './images/image-views.ts';
import type { WalletVerification } from './services/wallet-verification.ts';
import type { UsageRecorder } from './http/usage-recorder.ts';
import type { JourneyRelauncher } from './services/journey.ts';
import type { ReauthVerifier } from './services/reauth.ts';

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What route handlers need; built once in app.ts. */
export interface AppContext {
  config: Config;
  db: Db;
  keyring: MasterKeyring;
  /** Per-case data keys for personal data (see packages/case-data). */
  vault: CaseVault;
  now: () => Date;
  usage: UsageRecorder;
  idempotency: IdempotencySettings;
  /** Null when re-authentication is not configured: actions that need it are refused. */
  reauth: ReauthVerifier | null;
  journey: JourneyRelauncher;
  /** Image bytes of the journey, sealed by the caller (filesystem under DATA_DIR/blobs by default). */
  blobs: BlobStore;
  /** Thumbnails and document portraits, made in worker threads. */
  imageViews: ImageViews;
  /** Wallet presentations, verified in a worker thread. */
  walletVerification: WalletVerification;
}
