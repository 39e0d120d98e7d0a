#!/usr/bin/env bash
# `make test`: every test. Installs what the tests need when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Skill imports are tested against local Git repositories.
if ! command -v git >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "make test: installing git ..."
    source scripts/apt.sh
    apt_install git
  else
    echo "make test: the skill import tests need git (https://git-scm.com)" >&2
    exit 1
  fi
fi

# The sandbox tests need a Docker engine and the sandbox image (built offline if need be);
# outside `make test` they skip without them.
# Every server the tests start uses slim unless a test asks for full (document conversion);
# both are built (full once: several minutes, kept after).
export ANTLER_SANDBOX_IMAGE="${ANTLER_SANDBOX_IMAGE:-antler-sandbox:slim}"
scripts/sandbox-image.sh all
export ANTLER_REQUIRE_DOCKER=1 ANTLER_REQUIRE_FULL_IMAGE=1

# Repository and replica tests run against PostgreSQL too: ANTLER_TEST_POSTGRES_URL, or a
# private instance started here (its own directory and port) and stopped at the end.
source scripts/postgres.sh
ensure_postgres
trap stop_postgres EXIT
drop_test_databases
export ANTLER_REQUIRE_POSTGRES=1

# The MCP client tests run real MCP servers from npm and PyPI, installed (pinned) into a
# cache outside the clone; the tests read where from these variables.
# (Captured first: a failed install stops here instead of being hidden by `eval`.)
mcp_env="$(scripts/mcp-servers.sh)"
set -a
eval "$mcp_env"
set +a
export ANTLER_REQUIRE_MCP=1

if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast
else
  cargo test --workspace --no-fail-fast
fi

# The built-in skills' scripts (Python 3 standard library only), then checks of the
# repository's own build files.
python3 -m unittest discover -s tests/skills -v
python3 -m unittest discover -s tests/repo -v

# The official LangGraph Python and JavaScript SDKs against the server, unmodified.
scripts/sdk-test.sh
scripts/sdk-js-test.sh

# The whole HTTP API fuzzed from its OpenAPI document (Schemathesis, every check, ~2 min).
scripts/api-fuzz.sh

# The web UI: unit tests (Vitest), then end to end in Chromium against the real server, the
# Docker sandbox and the scripted model (scripts/e2e.sh). Both need Node.js 20.19+ with npm.
if ! command -v npm >/dev/null; then
  echo "make test: the web UI tests need Node.js 20.19+ with npm (https://nodejs.org)" >&2
  exit 1
fi
# The tests need the UI built: an unsuitable Node.js fails here, with the reason.
ANTLER_REQUIRE_WEB=1 scripts/frontend.sh
# The UI's API types are generated from the OpenAPI snapshot: a stale copy fails here.
(cd frontend && npm run -s gen:api >/dev/null)
if ! git diff --quiet -- frontend/src/api/schema.d.ts 2>/dev/null; then
  echo "make test: frontend/src/api/schema.d.ts is stale; run 'cd frontend && npm run gen:api' and commit it" >&2
  exit 1
fi
(cd frontend && npm test --silent)
scripts/e2e.sh

# LangChain's Agent Chat UI, unmodified, in Chromium against the server, directly and through
# its Next.js passthrough; built once into a cache outside the clone (skipped without its source).
scripts/agent-chat-ui-test.sh
