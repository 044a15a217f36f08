# syntax=docker/dockerfile:1
# One file, two images: `--target api` and `--target worker` (the worker adds Debian's Chromium for crawling).

FROM node:20-bookworm-slim AS base
ENV NODE_ENV=production \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    DATA_DIR=/data
WORKDIR /app

# Dependencies first, so a source change does not reinstall them; compilers only for native modules without a prebuild.
FROM base AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY packages/adapters/package.json packages/adapters/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/crawler/package.json packages/crawler/
COPY packages/observability/package.json packages/observability/
COPY packages/queue/package.json packages/queue/
# `npm install`, not `npm ci`: the lock file is trimmed to this project's platforms and `npm ci` rejects it.
RUN npm install --omit=dev --no-audit --no-fund
COPY . .

FROM base AS runtime
RUN mkdir -p /data && chown node:node /data
COPY --from=build --chown=node:node /app /app
VOLUME ["/data"]

FROM runtime AS api
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]

FROM runtime AS worker
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*
ENV CHROMIUM_PATH=/usr/bin/chromium
USER node
EXPOSE 3001
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.WORKER_HEALTH_PORT||3001)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "apps/worker/src/main.ts"]
