#!/usr/bin/env bash
# Installs code-server (a real VS Code 1.100 served to a browser) for the
# end-to-end test, offline but for the npm registry, into a cache folder that
# outlives the clone, so only the first run pays for it (1–5 minutes, ~300 MB).
#
# Prints the path of the code-server executable on its last line.
#
# Why the dance: code-server's postinstall runs `npm install` inside its
# bundled VS Code, whose @vscode/ripgrep postinstall downloads rg from GitHub,
# which this machine cannot reach. That download is skipped when the release
# tarball is already in its cache folder ($TMPDIR/vscode-ripgrep-cache-<ver>),
# so we seed that cache with Debian's own rg. node-pty builds with node-gyp
# (hence the Debian build libraries and npm_config_yes for its `npx`).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${AGENTLS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentls-vscode-e2e}"
lock="$here/code-server/package-lock.json"
# Keyed by the pinned files' content and Node's major version, not by the clone's path.
stamp_value="$(cat "$here/code-server/package.json" "$lock" | sha256sum | cut -c1-16)-node$(node -p 'process.versions.node.split(".")[0]')"
target="$cache/code-server-$stamp_value"
bin="$target/node_modules/.bin/code-server"

if [ -x "$bin" ] && [ -f "$target/.installed" ]; then
  echo "code-server already installed in $target" >&2
  echo "$bin"
  exit 0
fi

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" != 20 ]; then
  echo "code-server 4.100.3 needs Node 20; this is Node $major" >&2
  exit 3
fi
rg_path="$(command -v rg || true)"
if [ -z "$rg_path" ]; then
  echo "ripgrep (rg) is missing: apt-get install ripgrep (make deps does it)" >&2
  exit 3
fi

case "$(uname -m)" in
  x86_64) rg_target=x86_64-unknown-linux-musl ;;
  aarch64) rg_target=aarch64-unknown-linux-musl ;;
  *) echo "no ripgrep seed for $(uname -m)" >&2; exit 3 ;;
esac

rm -rf "$target" "$target.partial"
mkdir -p "$target.partial/tmp"
# A private TMPDIR: the seeded cache is ours alone and goes away with the install.
export TMPDIR="$target.partial/tmp"
seed="$TMPDIR/rg-seed"
mkdir -p "$seed" && cp "$rg_path" "$seed/rg"
for minor in $(seq 11 30); do
  folder="$TMPDIR/vscode-ripgrep-cache-1.15.$minor"
  mkdir -p "$folder"
  tar -czf "$folder/ripgrep-v13.0.0-10-$rg_target.tar.gz" -C "$seed" rg
done

cp "$here/code-server/package.json" "$lock" "$target.partial/"
started=$(date +%s)
(
  cd "$target.partial"
  # unsafe_perm: code-server's postinstall refuses to run as root without it.
  # yes: node-pty's postinstall runs `npx node-gyp` and must not stop to ask.
  npm_config_yes=true npm_config_unsafe_perm=true npm ci --no-audit --no-fund --loglevel=error >&2
)
rm -rf "$target.partial/tmp"
mv "$target.partial" "$target"
touch "$target/.installed"
echo "code-server installed in $(( $(date +%s) - started )) s: $target" >&2
# Older installs (another lock) are dead weight.
find "$cache" -maxdepth 1 -name 'code-server-*' ! -name "code-server-$stamp_value" -exec rm -rf {} + 2>/dev/null || true
echo "$bin"
