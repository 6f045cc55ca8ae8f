#!/bin/sh
# The image's entrypoint: one image runs any role, named by its command (`podman run IMAGE worker`).
# Each role execs Node itself (no npm, no shell left behind), so SIGTERM reaches the process, which
# finishes what is in flight and exits (docs/deployment.md).
set -e
cd /app
role="${1:-all-in-one}"
[ "$#" -gt 0 ] && shift
case "$role" in
  # The whole service in one process: API, journey, docs, console (with the development identity
  # provider outside production), worker; the embedded database in DATA_DIR without DATABASE_URL.
  all-in-one) exec node --require tsx/cjs apps/server/src/serve.mjs "$@" ;;
  # The API alone (PostgreSQL; run workers apart): `npm run api`.
  api) exec node --require tsx/cjs apps/server/src/serve.mjs --api-only "$@" ;;
  # The API with the journey and the documentation site; no worker (RUN_WORKER=false), no console
  # (its own role): what a deployment runs behind its load balancer.
  web) export RUN_WORKER=false; exec node --require tsx/cjs apps/server/src/serve.mjs --without-console "$@" ;;
  # Checks, webhook deliveries, retention: `npm run worker`.
  worker) exec node --import tsx apps/worker/src/main.ts "$@" ;;
  # The operator console's server alone: `npm run console`.
  console) exec node --import tsx apps/console/src/main.ts "$@" ;;
  # Pending migrations (and the demo client on an empty database), then exit: `npm run migrate`.
  migrate) exec node --import tsx apps/server/src/migrate.ts "$@" ;;
  # The administration commands: `npm run admin -- …`.
  admin) exec node --import tsx apps/api/src/admin/cli.ts "$@" ;;
  *)
    echo "unknown role '$role': all-in-one, api, web, worker, console, migrate or admin" >&2
    exit 64
    ;;
esac
