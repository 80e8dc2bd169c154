# syntax=docker/dockerfile:1
# One Dockerfile for every process of the monorepo (docs/architecture.md: the same
# code runs on a laptop, in CI and in Kubernetes; only the environment differs).
#
#   docker build --build-arg SERVICE=auth -t ghcr.io/svc-platform/auth .
#   docker build --build-arg SERVICE=sites --build-arg ENTRY=dist/worker/main.js \
#                -t ghcr.io/svc-platform/sites-worker .
#   docker build --target migrate -t ghcr.io/svc-platform/migrate .
#
#   docker build --build-arg SERVICE=web -t ghcr.io/svc-platform/web .
#
# SERVICE is gateway | auth | app-store | sites | chat | translate | realtime | web | mcp.
# web (the server-rendered pages) also ships services/web/build, the React Router build
# (server bundle + client assets) its dist/main.js serves.
# The `deps` and `build` stages do not depend on SERVICE, so building the nine images
# from one context reuses them from the layer cache: the workspace is installed and
# compiled once, and only the small per-service `deploy`/`runtime` stages differ.

ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# ---------------------------------------------------------------------------------------
# base: Node + the exact pnpm of package.json's "packageManager" (another version makes
# pnpm try to download itself). npm i -g instead of corepack: corepack would fetch pnpm
# from the network on first use and verify a signature, npm only needs the registry.
FROM ${NODE_IMAGE} AS base
# CI=true: pnpm never prompts; the telemetry switches keep builds from calling home.
ENV CI=true \
    TURBO_TELEMETRY_DISABLED=1 \
    CHECKPOINT_DISABLE=1
RUN npm install -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /repo

# ---------------------------------------------------------------------------------------
# deps: download every package of the lockfile into pnpm's store. `pnpm fetch` needs only
# the lockfile (plus the workspace file and the patches it names), so this layer is
# rebuilt only when dependencies change, not on every source edit.
FROM base AS deps
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY patches ./patches
RUN pnpm fetch --frozen-lockfile

# ---------------------------------------------------------------------------------------
# build: the whole workspace, installed offline from the store fetched above, then
# `turbo run build` (which first runs `prisma generate` for the Prisma services: the
# generated client lands in src/generated and is compiled into dist with the rest).
FROM deps AS build
COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm turbo run build

# ---------------------------------------------------------------------------------------
# migrate: one-shot image that applies every service's Prisma migrations
# (scripts/migrate.mjs runs `prisma migrate deploy` in auth, app-store, sites and chat,
# each into its own PostgreSQL schema). It needs the Prisma CLI, each prisma.config.ts and
# the kit's migration adapter (imported from source) with their dev dependencies, so it is
# the build stage, not a pruned runtime image.
# Run it (compose `migrate` service, k8s Job `svc-migrate`) before rolling out services.
FROM build AS migrate
ENV NODE_ENV=production
# The only writable place under /repo: tools that cache compiled config (prisma.config.ts
# is TypeScript) put it in node_modules/.cache; everything else stays root-owned.
RUN mkdir -p node_modules/.cache && chown 1000:1000 node_modules/.cache
# uid 1000 is the image's `node` user; numeric so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
CMD ["node", "scripts/migrate.mjs"]

# ---------------------------------------------------------------------------------------
# deploy: a self-contained copy of one package with only its production dependencies.
# `pnpm deploy --prod` copies the package and installs its prod dependency tree from the
# store (workspace packages such as @svc/service-kit are copied with their built dist).
# `--legacy` because the workspace does not set inject-workspace-packages, which pnpm 10's
# new deploy requires. Then /out is pruned to what is shipped: package.json, node_modules,
# dist, and for web its build/ (git-ignored, so pnpm deploy leaves it out: copied here).
FROM build AS deploy
ARG SERVICE
RUN set -eu; \
    case "${SERVICE:-}" in \
      gateway|auth|app-store|sites|chat|translate|realtime|web|mcp) ;; \
      *) echo "build arg SERVICE must be one of gateway auth app-store sites chat translate realtime web mcp, got '${SERVICE:-}'" >&2; exit 1 ;; \
    esac; \
    pnpm --filter "@svc/${SERVICE}" deploy --legacy --prod /out; \
    test -d /out/dist || { echo "@svc/${SERVICE} has no dist/ after the build" >&2; exit 1; }; \
    if [ "${SERVICE}" = web ]; then \
      test -f services/web/build/server/index.js && test -d services/web/build/client \
        || { echo "@svc/web has no build/server/index.js and build/client/ after the build" >&2; exit 1; }; \
      rm -rf /out/build && cp -R services/web/build /out/build; \
    fi; \
    find /out -mindepth 1 -maxdepth 1 \
      ! -name package.json ! -name node_modules ! -name dist ! -name build \
      -exec rm -rf {} +

# ---------------------------------------------------------------------------------------
# runtime: the image that is shipped. Fresh slim base: no pnpm, no compiler, no sources
# of other services, no dev dependencies. Only package.json, dist and node_modules (web:
# and build/, its server bundle and client assets), as pruned in `deploy`.
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
# Which compiled file to start: dist/main.js for every service, dist/worker/main.js for
# the sites worker (the same package as sites, built with ENTRY set).
ARG ENTRY=dist/main.js
ENV NODE_ENV=production \
    SERVICE=${SERVICE} \
    ENTRY=${ENTRY}
WORKDIR /app
# Owned by root and only readable by the process user: the running service cannot
# rewrite its own code or dependencies.
COPY --from=deploy /out/ ./
# Fail the build, not the rollout, when ENTRY names a file that was not compiled.
RUN test -f "/app/${ENTRY}" || { echo "ENTRY ${ENTRY} not found in the image" >&2; exit 1; }; \
    if [ "${SERVICE}" = web ]; then test -f /app/build/server/index.js && test -d /app/build/client \
      || { echo "web image without build/" >&2; exit 1; }; fi
# uid 1000 is the image's `node` user; numeric so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# No HEALTHCHECK here: the port depends on SERVICE and on PORT at run time; compose and
# the Kubernetes probes call /healthz and /readyz on the right port instead.
# exec: node becomes PID 1 and receives SIGTERM itself, so the services' graceful
# shutdown (drain HTTP, close Redis/PostgreSQL, BullMQ worker.close()) runs on stop.
CMD ["/bin/sh", "-c", "exec node \"$ENTRY\""]
