#!/usr/bin/env bash
# Installs the ONNX Runtime shared library into a project-local, git-ignored folder
# (.onnxruntime/ at the repository root by default), taking it from the npm package
# onnxruntime-node, which ships the official prebuilt library. The version is pinned
# because onnxruntime_go is built against one C API version: 1.24.3 works with
# onnxruntime_go v1.27.0.
#
# Usage: tools/onnxruntime.sh [DEST]
#   DEST          install folder (default: <repo>/.onnxruntime)
#   ORT_VERSION   onnxruntime-node version to install (default: 1.24.3)
#
# It does nothing when the library is already installed, and prints the path of
# DEST/lib/libonnxruntime.so on success (that is the value for ONNXRUNTIME_LIB).
set -euo pipefail

version="${ORT_VERSION:-1.24.3}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/.onnxruntime}"
lib="$dest/lib"
file="libonnxruntime.so.$version"

die() {
	echo "onnxruntime.sh: $*" >&2
	exit 1
}

installed() {
	[[ -f "$lib/$file" && -L "$lib/libonnxruntime.so" && -e "$lib/libonnxruntime.so" ]]
}

if installed; then
	echo "$lib/libonnxruntime.so"
	exit 0
fi

[[ "$(uname -s)" == Linux ]] || die "only Linux is supported; set ONNXRUNTIME_LIB to a library you installed yourself"
# shellcheck source=tools/npm-pack.sh
source "$root/tools/npm-pack.sh"
arch="$(npm_arch)"
[[ -n $arch ]] || die "no prebuilt ONNX Runtime for $(uname -m) in onnxruntime-node; set ONNXRUNTIME_LIB"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "onnxruntime.sh: fetching onnxruntime-node@$version" >&2
member="package/bin/napi-v6/linux/$arch/libonnxruntime.so.1"
npm_pack_member "onnxruntime-node@$version" "$member" "$tmp"
so="$tmp/$member"
[[ "$(head -c 4 "$so" | od -An -c | tr -d ' ')" == '177ELF' ]] || die "$member is not an ELF shared library"

mkdir -p "$lib"
# Copy under a temporary name and rename, so an interrupted run never leaves a
# truncated library that a later run would take as installed.
cp "$so" "$lib/.$file.tmp"
chmod 0644 "$lib/.$file.tmp"
mv -f "$lib/.$file.tmp" "$lib/$file"
ln -sfn "$file" "$lib/libonnxruntime.so.1"
ln -sfn "$file" "$lib/libonnxruntime.so"
echo "$version" >"$dest/VERSION"
installed || die "installation into $lib did not complete"
echo "onnxruntime.sh: installed ONNX Runtime $version into $lib" >&2
echo "$lib/libonnxruntime.so"
