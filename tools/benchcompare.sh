#!/usr/bin/env bash
# benchcompare.sh BASE [PATTERN] [PACKAGES] [COUNT]: runs the Go benchmarks matching
# PATTERN, with allocations, at commit BASE and at the working tree, one run of each in
# turn COUNT times (so a busy machine slows both alike), and compares them with
# benchstat. Benchmarks that exist on one side only are listed but not compared.
set -euo pipefail
base=${1:?usage: benchcompare.sh BASE [PATTERN] [PACKAGES] [COUNT]}
pattern=${2:-.}
read -r -a pkgs <<< "${3:-./internal/httpapi ./internal/oip ./internal/backend/onnx ./internal/tensor}"
count=${4:-6}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add --detach -q "$tmp/base" "$base"
# Both trees use this checkout's ONNX Runtime (make onnxruntime).
export ONNXRUNTIME_LIB=${ONNXRUNTIME_LIB:-$root/.onnxruntime/lib/libonnxruntime.so}
go=${GO:-go}
build() { # dir out: compile each package's tests once, so the runs measure only themselves
	local dir=$1 out=$2 p
	mkdir -p "$out"
	for p in "${pkgs[@]}"; do
		if [ -d "$dir/$p" ]; then (cd "$dir" && $go test -c -o "$out/$(basename "$p").test" "$p"); fi
	done
}
build "$tmp/base" "$tmp/bin-base"
build "$root" "$tmp/bin-head"
for i in $(seq "$count"); do
	for side in base head; do
		dir=$root
		[ $side = base ] && dir=$tmp/base
		for p in "${pkgs[@]}"; do
			bin=$tmp/bin-$side/$(basename "$p").test
			[ -x "$bin" ] || continue
			(cd "$dir/$p" && "$bin" -test.run '^$' -test.bench "$pattern" -test.benchmem -test.count 1) >> "$tmp/$side.txt"
		done
	done
	echo "benchcompare: round $i of $count done" >&2
done
cd "$root/tools" && $go tool benchstat "$base=$tmp/base.txt" "now=$tmp/head.txt"
