#!/usr/bin/env bash
# Installs the agents the peers benchmark measures (pinned in npm/package-lock.json)
# into a cache folder that outlives the clone, so only the first run pays (about a
# minute, 1.5 GB: the agents ship native binaries). Prints that folder on its last line.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${AGENTLS_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentls-bench-peers}"
# Keyed by the pinned files' content and Node's major version, not by the clone's path.
stamp="$(cat "$here/npm/package.json" "$here/npm/package-lock.json" | sha256sum | cut -c1-16)-node$(node -p 'process.versions.node.split(".")[0]')"
target="$cache/agents-$stamp"

if [ -f "$target/.installed" ]; then
  echo "$target"
  exit 0
fi
rm -rf "$target" "$target.partial"
mkdir -p "$target.partial"
cp "$here/npm/package.json" "$here/npm/package-lock.json" "$target.partial/"
started=$(date +%s)
# `npm install`, not `npm ci`: npm 11 leaves the other platforms' optional binaries out of
# the lock, which `npm ci` then refuses; the lock still pins every version installed.
(cd "$target.partial" && npm install --no-audit --no-fund --loglevel=error >&2)
mv "$target.partial" "$target"
touch "$target/.installed"
echo "peers installed in $(( $(date +%s) - started )) s: $target" >&2
# Older installs (another lock) are dead weight.
find "$cache" -maxdepth 1 -name 'agents-*' ! -name "agents-$stamp" -exec rm -rf {} + 2>/dev/null || true
echo "$target"
