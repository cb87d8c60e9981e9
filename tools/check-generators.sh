#!/usr/bin/env bash
# Stock client generators on openapi.yaml, as an integrator runs them, with no
# project-specific transform of the contract or of their output (see
# docs/design.md#stock-client-generators-no-transform):
#
#   openapi-typescript   its CLI, plainly; the types used with openapi-fetch
#   @hey-api/openapi-ts  its defaults (types, SDK functions, fetch client); the config
#                        file beside the program only names the input, the output and
#                        the tsconfig (for NodeNext's `.js` import extensions)
#   ogen                 with one documented option (tools/generators/ogen.yml): skip
#                        the one operation whose body it cannot decode, GET /openapi.yaml
#   oapi-codegen         `-generate types,client`, no config
#
# Each client is used by a small program in tools/generators that predicts with `data`,
# reads `result`, submits a job and reads its record, sends a batch with on_error
# continue and reads an answer's item_errors, and reads a problem's `code`. The
# TypeScript programs are type-checked with strict tsc (which also checks that
# PredictRequest's `data` takes every JSON value and is not `any`), the Go ones built
# with go build; then all four run against a live inferd (bin/inferd, the echo model,
# in-process jobs), each ending with its pass line.
#
# The generators are pinned: the npm ones in tools/package.json (with tsc and
# openapi-fetch), ogen and oapi-codegen in tools/go.mod; the Go programs' module
# (tools/generators/go.mod) pins the runtime libraries of the generated Go clients, at
# the versions of those generators (checked below).
#
# Needs: tools/node_modules (make npm-tools), bin/inferd (make build), node >= 20, curl.
# `make check-generators` does all of that first.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "check-generators: $*" >&2
	exit 1
}

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || die "node is not installed (need >= 20)"
((node_major >= 20)) || die "node $(node --version) is too old: the npm tools need node >= 20"
command -v curl >/dev/null || die "curl is needed"
bin=tools/node_modules/.bin
[[ -x $bin/openapi-ts && -x $bin/openapi-typescript && -x $bin/tsc ]] || die "the npm tools are not installed: run 'make npm-tools'"
[[ -x bin/inferd ]] || die "bin/inferd is missing: run 'make build'"

gen=tools/generators
work=$(mktemp -d)
pids=()
cleanup() {
	local pid
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

gotool() { go tool -modfile=tools/go.mod "$@"; }
# modversion GOMOD MODULE: the version of MODULE that GOMOD's module builds with.
modversion() {
	(cd "$(dirname "$1")" && GOWORK=off go list -m -f '{{.Version}}' "$2")
}

rm -rf "$gen/ts/gen" "$gen/ts/dist" "$gen/ogen/client" "$gen/oapi-codegen/client"

echo "== openapi-typescript $("$bin/openapi-typescript" --version | tr -d '\n'), plainly"
"$bin/openapi-typescript" openapi.yaml --output "$gen/ts/gen/openapi-typescript/schema.ts" >"$work/openapi-typescript.log" 2>&1 ||
	{ cat "$work/openapi-typescript.log" >&2; die "openapi-typescript failed"; }

echo "== @hey-api/openapi-ts $("$bin/openapi-ts" --version | tr -d '\n'), its defaults"
(cd "$gen/ts" && ../../node_modules/.bin/openapi-ts --file openapi-ts.config.mjs --silent --no-log-file) ||
	die "@hey-api/openapi-ts failed"

echo "== tsc $("$bin/tsc" --version | tr -d '\n') (strict) on the two TypeScript programs"
"$bin/tsc" -p "$gen/ts"

ogen_version=$(modversion tools/go.mod github.com/ogen-go/ogen)
echo "== ogen $ogen_version, with $gen/ogen.yml"
gotool ogen -config "$gen/ogen.yml" -package client -target "$gen/ogen/client" -clean openapi.yaml >"$work/ogen.log" 2>&1 ||
	{ cat "$work/ogen.log" >&2; die "ogen failed"; }
# What it left out, which the config allows: only GET /openapi.yaml may be skipped.
skipped=$(grep -c 'Skipping operation' "$work/ogen.log" || true)
if ((skipped != 1)) || ! grep 'Skipping operation' "$work/ogen.log" | grep -q 'application/yaml'; then
	grep -E 'Skipping operation|unsupported|not implemented' "$work/ogen.log" >&2 || true
	die "ogen skipped $skipped operations; want only GET /openapi.yaml (application/yaml)"
fi
echo "ogen skipped GET /openapi.yaml (application/yaml), as configured"

oapi_version=$(modversion tools/go.mod github.com/oapi-codegen/oapi-codegen/v2)
echo "== oapi-codegen $oapi_version, -generate types,client"
mkdir -p "$gen/oapi-codegen/client"
gotool oapi-codegen -generate types,client -package client openapi.yaml >"$gen/oapi-codegen/client/client.gen.go"

# The generated Go clients need their generator's runtime: ogen's own module, and the
# runtime the server's module uses with the same oapi-codegen.
for want in "github.com/ogen-go/ogen $ogen_version" "github.com/oapi-codegen/runtime $(modversion go.mod github.com/oapi-codegen/runtime)"; do
	got=$(modversion "$gen/go.mod" "${want% *}")
	[[ "${want% *} $got" == "$want" ]] || die "$gen/go.mod has ${want% *} $got; want ${want#* } (update it with go get)"
done

echo "== go vet and go build on the two Go programs"
(cd "$gen" && GOWORK=off GOFLAGS=-mod=readonly go vet ./ogen ./oapi-codegen ./shared &&
	GOWORK=off GOFLAGS=-mod=readonly go build -o "$work/" ./ogen ./oapi-codegen)

# A port the kernel just handed out and released; a clash with another process that
# grabs it in between fails the start below, loudly.
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
mkdir "$work/models" # the built-in echo model is all the programs use
env -u QUEUE_URL -u API_KEYS -u API_KEYS_FILE -u INFERD_ENV -u PUBLIC_URL \
	PORT="$port" GRPC_PORT=0 MODELS_DIR="$work/models" RATE_LIMIT_RPS=0 AUTH_FAILURES_PER_MINUTE=0 LOG_LEVEL=warn \
	bin/inferd >"$work/inferd.log" 2>&1 &
pids+=($!)
for ((i = 0; i < 300; i++)); do
	[[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/ready" || true) == 200 ]] && break
	((i < 299)) || { tail -n 40 "$work/inferd.log" >&2; die "inferd did not get ready within 30s"; }
	sleep 0.1
done

echo "== the four programs against inferd"
export INFERD_URL="http://127.0.0.1:$port" INFERD_API_KEY=dev-key
node "$gen/ts/dist/openapi-typescript.js"
node "$gen/ts/dist/hey-api.js"
"$work/ogen"
"$work/oapi-codegen"
echo "check-generators: openapi-typescript, @hey-api/openapi-ts, ogen and oapi-codegen clients generated with no transform, compiled and run against inferd"
