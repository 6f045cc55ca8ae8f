import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { openBlobStore, type BlobStore } from '@idv/blobstore';
import type { Db } from '@idv/db';
import { newId } from '@idv/domain';
import { LocalKeyWrapper, type MasterKeyring } from '@idv/vault';
import type { Config } from '@idv/config';
import type { App, AppContext } from './context.ts';
import { installAuth } from './http/auth.ts';
import { MAX_PATH_PARAM_LENGTH, installErrorHandling } from './http/error-handler.ts';
import { installForbiddenTextGuard } from './http/forbidden-text.ts';
import { withConsoleExtension } from './http/openapi-credential.ts';
import { clientErrorHandler, frameworkErrors, setCommonHeaders } from './http/framework-errors.ts';
import { installJsonBody } from './http/json-body.ts';
import { installNotFound } from './http/method-not-allowed.ts';
import { installOperatorAuth } from './http/operator.ts';
import { createRateLimits } from './http/rate-limits.ts';
import { installRequestMetrics } from './http/request-metrics.ts';
import { installSessionAuth } from './http/session-auth.ts';
import { installSignatureCheck } from './http/signature.ts';
import { ImageViews } from './images/image-views.ts';
import { WalletVerification } from './services/wallet-verification.ts';
import { UsageRecorder } from './http/usage-recorder.ts';
import { registerHealth, type ChecksStatus } from './routes/health.ts';
import { registerRoutes } from './routes/index.ts';
import { registerOpenApi } from './routes/openapi.ts';
import { SHARED_SCHEMAS } from './routes/schemas.ts';
import { openapiTags } from './schemas/tags.ts';
import { webhookOperations } from './schemas/webhooks.ts';
import { logRequest } from './http/log-request.ts';
import { serializersOf, sharedSerializers } from './http/shared-serializers.ts';
import { lazyValidator } from './http/lazy-validators.ts';
import { CaseVault } from '@idv/case-data';
import { builtInJourneyRelauncher, type JourneyRelauncher } from './services/journey.ts';
import { ReauthVerifier } from './services/reauth.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface BuildOptions {
  config: Config;
  db: Db;
  keyring: MasterKeyring;
  /** The service clock; tests pass a controllable one. */
  now?: () => Date;
  /** False until the process is ready, and again while it shuts down. */
  ready?: () => Promise<boolean>;
  /** Where the checks' models stand, for /readyz (default `not_running`: no worker in this process). */
  checks?: () => ChecksStatus;
  logger?: boolean;
  /** Where the log lines go (default stdout); tests read them. */
  logStream?: NodeJS.WritableStream;
  /** Relaunches the journey after a resubmission decision; tests pass a failing one. */
  journey?: JourneyRelauncher;
  /** Where journey images go; defaults to the store BLOB_STORE names (openBlobStore). */
  blobs?: BlobStore;
}

/** JSON API bodies are small; image uploads get their own limits on their own routes. */
const BODY_LIMIT = 64 * 1024;

/**
 * Bodies are validated strictly (no type coercion: "12" is not a number), while query strings,
 * path and headers are coerced from text. Unknown fields are refused (removeAdditional: false).
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  for (const schema of SHARED_SCHEMAS) ajv.addSchema(schema);
  return ajv;
}

export async function build(options: BuildOptions): Promise<{ app: App; ctx: AppContext }> {
  const { config, db, keyring } = options;
  const now = options.now ?? (() => new Date());
  const serializers = sharedSerializers();
  const app = Fastify({
    logger: options.logger === false ? false : {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["x-service-signature"]', 'req.headers["idempotency-key"]', 'req.headers["x-service-reauthenticated-at"]'],
      serializers: { req: logRequest },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    trustProxy: config.trustProxy,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    // Requests that arrive on open connections while closing are served (the database closes after
    // the server), rather than answered with Fastify's own 503 body outside the error shape.
    return503OnClosing: false,
    // The framework's own refusals (router, HTTP parser) in the spec's error shape too.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl),
    schemaController: { compilersFactory: { buildSerializer: serializers } },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  serializersOf(app, serializers);
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => lazyValidator(app, () => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema)));
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Identity verification service',
        version: '0.1.0',
        description:
          'Cases, journey links, keys and usage. Every call carries `Authorization: Bearer` followed by the API key; creations are signed ' +
          '(X-Service-Timestamp, X-Service-Signature v2) and idempotent (Idempotency-Key). Errors share one shape: see the Error schema. ' +
          'Requests are rate limited per key, operator and journey session: every answer carries RateLimit-Policy, RateLimit-Limit, ' +
          'RateLimit-Remaining and RateLimit-Reset, and 429 rate_limited carries Retry-After (seconds).',
      },
      servers: [
        {
          url: '{base_url}',
          description: 'The API_BASE_URL of a deployment',
          variables: { base_url: { default: 'http://localhost:8080' } },
        },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'sk_sandbox_… or sk_live_…' },
          sessionToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Journey routes only: "Session <token>", the token being the fragment of the journey link',
          },
        },
      },
      security: [{ apiKey: [] }],
      // The reference's menu: resources in the order an integrator meets them, grouped by audience.
      ...openapiTags(),
      // What the service sends to the integrator's endpoints: one POST per event type.
      webhooks: webhookOperations(),
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: withConsoleExtension,
  });

  const usage = new UsageRecorder(db);
  const ctx: AppContext = {
    config,
    db,
    keyring,
    vault: new CaseVault(new LocalKeyWrapper(keyring)),
    now,
    usage,
    reauth: config.reauth ? new ReauthVerifier(config.reauth, now) : null,
    journey: options.journey ?? builtInJourneyRelauncher,
    blobs: options.blobs ?? openBlobStore(config, db),
    imageViews: new ImageViews(),
    walletVerification: new WalletVerification(),
    idempotency: { db, now, lockMs: config.idempotencyLockMs, retainMs: config.idempotencyRetainMs, docsUrl: config.docsUrl, keyring },
  };

  app.addHook('onClose', () => Promise.all([ctx.imageViews.close(), ctx.walletVerification.close()]).then(() => undefined));
  installErrorHandling(app, config.docsUrl);
  installRequestMetrics(app);
  installNotFound(app);
  installJsonBody(app);
  const rateLimits = await createRateLimits(app, config.rateLimits, config.redisUrl);
  rateLimits?.installAddressGate();
  installAuth(app, db);
  installSessionAuth(app, db, config.journeyUrl, now);
  rateLimits?.installCredentialLimits();
  installForbiddenTextGuard(app);
  installSignatureCheck(app, keyring, config.signatureToleranceS, now);
  installOperatorAuth(app, ctx);
  usage.install(app, now);
  // Synchronous (done callback): an async hook would add a promise and its microtask to every
  // response.
  app.addHook('onSend', (req, reply, payload, done) => {
    setCommonHeaders(reply, req.id);
    done(null, payload);
  });

  registerHealth(app, options.ready ?? (async () => true), options.checks);
  registerOpenApi(app);
  registerRoutes(app, ctx);
  await app.ready();
  return { app, ctx };
}
