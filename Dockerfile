# syntax=docker/dockerfile:1
# The service's image: one image for every role (api, worker, console, web, all-in-one, migrate,
# admin), chosen by its command; see docs/deployment.md#the-image.
#   docker build -t idv .
#   docker run --rm -p 8080-8084:8080-8084 idv                       # all-in-one, embedded database
#   docker run --rm --env-file .env idv api                          # the API on PostgreSQL
# NODE_IMAGE names the Node 20 base (a Debian bookworm one); the repository's deploy test builds on
# a base image it makes itself, as this machine reaches no registry (deploy/test/make-base.sh).
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, the web apps, the docs site, the service's bundle, then only the
# production dependencies kept.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# npm 10 (Node 20's) ignores package.json's allowScripts: without this, onnxruntime-node's install
# script would download GPU binaries. Nothing is downloaded at install or run time but npm packages.
ENV ONNXRUNTIME_NODE_INSTALL=skip \
    NPM_CONFIG_UPDATE_NOTIFIER=false
# The manifests first, so that the installed dependencies are reused while only sources change.
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/console/package.json apps/console/
COPY apps/dev-idp/package.json apps/dev-idp/
COPY apps/docs/package.json apps/docs/
COPY apps/journey/package.json apps/journey/
COPY apps/server/package.json apps/server/
COPY apps/worker/package.json apps/worker/
COPY packages/blobstore/package.json packages/blobstore/
COPY packages/case-data/package.json packages/case-data/
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/domain/package.json packages/domain/
COPY packages/embed/package.json packages/embed/
COPY packages/engine/package.json packages/engine/
COPY packages/metrics/package.json packages/metrics/
COPY packages/sdk/package.json packages/sdk/
COPY packages/vault/package.json packages/vault/
COPY packages/wallet/package.json packages/wallet/
COPY packages/webhooks/package.json packages/webhooks/
# An optional build secret `ca` (a PEM bundle) for a registry reached through a TLS-inspecting
# proxy; never stored in a layer.
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --no-audit --no-fund \
 && npm cache clean --force
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund --offline \
 && rm -rf .tmp /tmp/* /root/.npm
# onnxruntime-node ships its binaries for every system (Windows, macOS, Linux on arm64 and x64:
# 290 MB); the image keeps its own system's (45 MB on x64). Everything readable by the service's
# user (the embedded database's template is copied from, by the all-in-one's first start), nothing
# writable.
RUN arch=$(node -p process.arch) \
 && find node_modules/onnxruntime-node/bin -mindepth 2 -maxdepth 2 ! -name linux -exec rm -rf {} + \
 && find node_modules/onnxruntime-node/bin -mindepth 3 -maxdepth 3 ! -name "$arch" -exec rm -rf {} + \
 && ls node_modules/onnxruntime-node/bin/*/linux/"$arch"/onnxruntime_binding.node \
 && chmod -R go+rX,go-w .

# --- runtime: the built tree, owned by root and read-only to the service's user.
FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="idv" \
      org.opencontainers.image.description="Self-hostable identity verification service: API, journey, console, worker" \
      org.opencontainers.image.licenses="MIT"
WORKDIR /app
COPY --from=build /app /app
# Writable paths, the only ones (the root file system may be read-only):
#   /tmp   temporary files (tsx's cache of the worker and console's compiled sources, uploads)
#   /data  DATA_DIR: the embedded database of all-in-one, BLOB_STORE=file's images, the demo
#          credentials; unused by api/worker/console on PostgreSQL with BLOB_STORE=postgres.
RUN mkdir -p /data && chown 1000:1000 /data && chmod 0700 /data
# NODE_ENV is not set here: a deployment sets NODE_ENV=production (the Helm chart does, compose's
# production settings too), which refuses the demonstration defaults at start; without it the
# all-in-one command starts the quick start's demonstration service.
ENV HOST=0.0.0.0 \
    DATA_DIR=/data \
    TMPDIR=/tmp \
    ORT_DISABLE_TELEMETRY=1
# Not root: the `node` user of the Node images (uid 1000).
USER 1000:1000
# API, journey, console, docs, development identity provider (all-in-one), metrics.
EXPOSE 8080 8081 8082 8083 8084 9464
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/deploy/image/healthcheck.mjs"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/deploy/image/entrypoint.sh"]
CMD ["all-in-one"]
