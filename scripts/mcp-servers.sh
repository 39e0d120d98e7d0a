#!/usr/bin/env bash
# Real MCP servers for the MCP client tests (crates/cli/tests/it, tests/mcp), installed from
# the package registries into a cache outside the repository:
#   ${ANTLER_MCP_CACHE:-$HOME/.cache/antler/mcp-servers}/npm    @modelcontextprotocol/server-everything
#   ${ANTLER_MCP_CACHE:-$HOME/.cache/antler/mcp-servers}/venv   mcp (Python SDK) + mcp-server-time
# Versions are pinned below; a part whose marker file names the same versions is reused, so a
# warm run takes well under a second. Logs go to stderr; stdout is only the closing
# assignments, so a test runner can do
#   set -a; eval "$(scripts/mcp-servers.sh)"; set +a
# tests/mcp/README.md says what each server offers and how the tests start them.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${ANTLER_MCP_CACHE:-$HOME/.cache/antler/mcp-servers}"
log() { echo "mcp-servers: $*" >&2; }

# Pinned: tool names and arguments changed between server-everything releases (echo/add/
# longRunningOperation became echo/get-sum/trigger-long-running-operation), and the tests
# name them. The TypeScript SDK is pinned too: server-everything only asks for ^1.30.
EVERYTHING_VERSION=2026.8.31
TS_SDK_VERSION=1.32.2
MCP_VERSION=2.3.0
TIME_VERSION=2026.10.19

need() { command -v "$1" >/dev/null || { log "$1 is needed: $2"; exit 1; }; }
need node "install Node.js 18 or newer (Debian: apt-get install nodejs npm)"
need npm "install npm (Debian: apt-get install npm)"
need python3 "install Python 3.10 or newer (Debian: apt-get install python3 python3-venv)"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)' \
  || { log "Node.js 18 or newer is needed (found $(node --version))"; exit 1; }
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { log "Python 3.10 or newer is needed by mcp $MCP_VERSION (found $(python3 --version 2>&1))"; exit 1; }

mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
# Two test runs starting at once must not install into the same directories together.
if command -v flock >/dev/null; then
  exec 9>"$cache/.lock"
  flock 9
fi

# --- server-everything (npm) --------------------------------------------------------------
npm_dir="$cache/npm"
everything="$npm_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
npm_key="server-everything=$EVERYTHING_VERSION sdk=$TS_SDK_VERSION"
if [ "$(cat "$npm_dir/.antler-installed" 2>/dev/null)" = "$npm_key" ] && [ -f "$everything" ]; then
  log "server-everything $EVERYTHING_VERSION already installed"
else
  log "installing @modelcontextprotocol/server-everything@$EVERYTHING_VERSION into $npm_dir"
  # From scratch, so nothing of an older pin lingers; a local prefix, never a global install.
  rm -rf "$npm_dir"
  mkdir -p "$npm_dir"
  npm install --prefix "$npm_dir" --save-exact --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
    "@modelcontextprotocol/sdk@$TS_SDK_VERSION" >&2
  [ -f "$everything" ] || { log "npm installed no $everything"; exit 1; }
  echo "$npm_key" >"$npm_dir/.antler-installed"
fi

# --- mcp + mcp-server-time (PyPI) ---------------------------------------------------------
venv="$cache/venv"
# The interpreter's version is part of the key: a venv does not survive a new python3.
py_key="mcp=$MCP_VERSION mcp-server-time=$TIME_VERSION python=$(python3 -c 'import sys; print(sys.version.split()[0])')"
if [ "$(cat "$venv/.antler-installed" 2>/dev/null)" = "$py_key" ] && [ -x "$venv/bin/mcp-server-time" ]; then
  log "mcp $MCP_VERSION and mcp-server-time $TIME_VERSION already installed"
else
  log "installing mcp==$MCP_VERSION and mcp-server-time==$TIME_VERSION into $venv"
  rm -rf "$venv"
  source "$repo/scripts/venv.sh"
  ensure_venv "$venv" >&2
  # mcp-server-time depends on the tzdata package, so time zones work without the system's.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "mcp==$MCP_VERSION" "mcp-server-time==$TIME_VERSION" >&2
  # A quick check that both import, before the marker says they are there.
  "$venv/bin/python" -c 'import mcp.server.lowlevel, mcp_server_time' >&2
  echo "$py_key" >"$venv/.antler-installed"
fi

# The last lines of stdout: what the tests read.
printf 'ANTLER_TEST_MCP_EVERYTHING=%q\n' "$everything"
printf 'ANTLER_TEST_MCP_NODE=%q\n' "$(command -v node)"
printf 'ANTLER_TEST_MCP_PYTHON=%q\n' "$venv/bin/python"
printf 'ANTLER_TEST_MCP_TIME=%q\n' "$venv/bin/mcp-server-time"
