#!/usr/bin/env bash
# Builds the web UI into frontend/dist when it is missing or older than its sources
# (`make frontend`; `make run`, `make demo` and the e2e tests call it). FORCE=1 always builds.
set -euo pipefail
cd "$(dirname "$0")/../frontend"
if ! command -v npm >/dev/null; then
  echo "frontend: npm not found: the server runs without the web UI (install Node.js 20.19+ to build it)" >&2
  exit "${ANTLER_REQUIRE_WEB:-0}"
fi
# Vite 7 needs Node.js 20.19+ (or 22.12+).
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "frontend: Node.js $(node -v) cannot build the web UI (20.19+ or 22.12+ is needed); the server runs without it" >&2
  exit "${ANTLER_REQUIRE_WEB:-0}"
fi
if [ "${FORCE:-0}" != 1 ] && [ -f dist/index.html ] &&
  [ -z "$(find src index.html package.json package-lock.json vite.config.ts tsconfig.json -newer dist/index.html -print -quit)" ]; then
  exit 0
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "frontend: installing dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "frontend: building the web UI"
npm run --silent build
touch dist/index.html
