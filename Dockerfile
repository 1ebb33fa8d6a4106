# syntax=docker/dockerfile:1
# The agent operator's image: built in one stage, run from a second one that holds only the
# compiled JavaScript, the production dependencies and the CRDs.
#
# Both stages use the same Node LTS line, pinned to an exact release so that a rebuild gives
# the same runtime; a release pipeline should additionally pin the digest (node@sha256:...).
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

# ---- build: all dependencies, the production program compiled to dist/ ----
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own "prepare" would compile before the sources are copied.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.image.json ./
COPY src ./src
# build:image compiles src/ without the emulators (src/sim), the demo (src/demo) and the
# development CLI (src/dev-cli.ts): the image holds the operator and its tools only.
RUN npm run build:image

# ---- runtime: production dependencies only, no compiler, no npm, non-root ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# glibc's malloc raises its trim threshold each time it frees a large block (a Buffer holding
# a list answer of megabytes), up to 64 MiB, and memory freed below the raised threshold stays
# resident, most of it in the arenas of V8's helper threads. Fixed at glibc's default of 128
# KiB, the threshold no longer rises and freed memory keeps going back (docs/operations.md,
# "Memory after a burst").
ENV MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies are installed here from the lock file, not copied from the build
# stage (whose node_modules holds the dev tools); install scripts never run in the image.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
COPY --from=build /src/dist ./dist
COPY crds ./crds
# The commit `agent-operator --version` reports: docker build --build-arg VCS_REF=$(git rev-parse HEAD)
# Declared last: a build argument invalidates every layer after it, and the dependency layer
# above need not be rebuilt (nor stored again) for each commit.
ARG VCS_REF=unknown
ENV AGENT_OPERATOR_COMMIT=${VCS_REF}
# 65532 is the conventional "nonroot" uid/gid (distroless); the chart runs with the same ids,
# a read-only root filesystem and a writable /tmp only.
USER 65532:65532
EXPOSE 8080
# No HEALTHCHECK: Kubernetes ignores Docker's HEALTHCHECK; the chart's liveness and readiness
# probes call /healthz and /readyz on the metrics port instead.
# --expose-gc lets `run` give back the old-space pages a burst of work left behind (the heap
# settle, docs/operations.md); nothing else calls it. --max-semi-space-size=4 holds V8's young
# generation to 4 MiB a semi-space: during a burst it grows to 16 MiB and stays committed, tens
# of MiB the settled process no longer needs (docs/operations.md, "Memory after a burst").
ENTRYPOINT ["node", "--expose-gc", "--max-semi-space-size=4", "dist/cli.js"]
CMD ["run"]
