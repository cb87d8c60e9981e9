#!/usr/bin/env bash
# Makes sure a node >= 20 is at hand for the npm tools (Spectral, Redocly, Prism) and the
# TypeScript SDK: Debian 12's nodejs package is node 18, which they refuse. When the node
# on PATH is older (or missing), it installs the official node binary that the npm
# package node-linux-<arch> ships into a project-local, git-ignored folder (.node/ at the
# repository root) and prints its bin folder, to put first on PATH:
#
#   PATH="$(bash tools/node.sh):$PATH"
#
# It prints nothing when the node on PATH is already new enough.
#   NODE_VERSION   the version to install (default: 20.20.2)
set -euo pipefail

version="${NODE_VERSION:-20.20.2}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.node"

die() {
	echo "node.sh: $*" >&2
	exit 1
}

major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if command -v node >/dev/null && (($(major node) >= 20)); then
	exit 0
fi
if [[ -x $dest/bin/node ]] && [[ $("$dest/bin/node" --version) == "v$version" ]]; then
	echo "$dest/bin"
	exit 0
fi

# shellcheck source=tools/npm-pack.sh
source "$root/tools/npm-pack.sh"
arch="$(npm_arch)"
[[ -n $arch ]] || die "no node-linux package for $(uname -m); install node >= 20 yourself"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "node.sh: $(node --version 2>/dev/null || echo 'no node') is older than 20; fetching node-linux-$arch@$version" >&2
npm_pack_member "node-linux-$arch@$version" package/bin/node "$tmp"
mkdir -p "$dest/bin"
mv -f "$tmp/package/bin/node" "$dest/bin/node.tmp"
chmod 0755 "$dest/bin/node.tmp"
mv -f "$dest/bin/node.tmp" "$dest/bin/node"
[[ $("$dest/bin/node" --version) == "v$version" ]] || die "the installed node does not run"
echo "node.sh: installed node $version into $dest/bin" >&2
echo "$dest/bin"
