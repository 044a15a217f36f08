# syntax=docker/dockerfile:1
# One file, two images: `--target api` and `--target worker` (the worker adds Debian's Chromium for crawling).
# Build stages compile TypeScript; the final stages hold compiled JavaScript and production dependencies only.

# Node.js 26 "Lithium": the Active LTS line since 2026-10-28 (Node 20 reached end of life in April 2026).
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS toolchain
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    MONGOMS_DISABLE_POSTINSTALL=1
WORKDIR /app
# Compilers for native modules that have no prebuilt binary for this Node version (better-sqlite3).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY apps/web/package.json apps/web/
COPY apps/worker/package.json apps/worker/
COPY packages/adapters/package.json packages/adapters/
COPY packages/client/package.json packages/client/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/crawler/package.json packages/crawler/
COPY packages/observability/package.json packages/observability/
COPY packages/queue/package.json packages/queue/

# Everything, dev dependencies included, then `tsc -b` to each workspace's dist/ and Vite to the dashboard's.
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY apps apps
COPY packages packages
RUN npm run build

# Production dependencies alone, from the same lock file.
FROM toolchain AS production-dependencies
RUN npm ci --omit=dev --no-audit --no-fund

# The final stages: no compiler, no TypeScript source, no dev dependency, no test or fixture.
FROM ${NODE_IMAGE} AS runtime
# tini reaps the worker's Chromium children and forwards signals, so `docker stop` shuts down cleanly.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown node:node /data
ENV NODE_ENV=production \
    DATA_DIR=/data
WORKDIR /app
COPY --from=production-dependencies /app/node_modules node_modules
COPY package.json ./
COPY --from=build /app/packages/adapters/package.json packages/adapters/
COPY --from=build /app/packages/adapters/dist packages/adapters/dist
# The general-language model that EMBEDDER=local-general reads (packages/adapters/models/README.md).
COPY --from=build /app/packages/adapters/models packages/adapters/models
COPY --from=build /app/packages/config/package.json packages/config/
COPY --from=build /app/packages/config/dist packages/config/dist
COPY --from=build /app/packages/core/package.json packages/core/
COPY --from=build /app/packages/core/dist packages/core/dist
COPY --from=build /app/packages/crawler/package.json packages/crawler/
COPY --from=build /app/packages/crawler/dist packages/crawler/dist
COPY --from=build /app/packages/observability/package.json packages/observability/
COPY --from=build /app/packages/observability/dist packages/observability/dist
COPY --from=build /app/packages/queue/package.json packages/queue/
COPY --from=build /app/packages/queue/dist packages/queue/dist
VOLUME ["/data"]
ENTRYPOINT ["/usr/bin/tini", "--"]

FROM runtime AS api
COPY --from=build /app/apps/api/package.json apps/api/
COPY --from=build /app/apps/api/dist apps/api/dist
# The dashboard's static files, which the API serves at /.
COPY --from=build /app/apps/web/dist apps/web/dist
USER node
EXPOSE 3000
# Liveness: the process answers. Compose's own healthcheck asks /readyz to order dependent services.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "apps/api/dist/main.js"]

FROM runtime AS worker
# git reads the repositories of POST /api/ingest-git; ca-certificates lets it (curl) check https remotes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV CHROMIUM_PATH=/usr/bin/chromium
COPY --from=build /app/apps/worker/package.json apps/worker/
COPY --from=build /app/apps/worker/dist apps/worker/dist
USER node
EXPOSE 3001
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.WORKER_HEALTH_PORT||3001)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "apps/worker/dist/main.js"]
