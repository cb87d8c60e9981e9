#!/usr/bin/env bash
# Contract tests from outside the Go code: starts inferd (the example models, in-process
# jobs) on a free port and Prism (@stoplight/prism-cli, pinned in tools/package.json) in
# proxy mode with --errors in front of it, validating every request and response against
# openapi.yaml. Runs the TypeScript SDK's end-to-end test, and the Go SDK's
# (./internal/e2etest) when that package exists, THROUGH Prism, then fails on any
# violation Prism reported.
#
# Prism must be shown to catch violations, or "0 violations" proves nothing: a second
# Prism, in front of the same server but with a contract that demands a field the server
# never sends, must answer the canary exchanges with violations, and the log check below
# must find them.
#
# Exchanges Prism cannot carry faithfully go to the server directly
# (INFERD_E2E_DIRECT_URL for the TypeScript test; for the Go test, the subtests in
# direct_subs below run with INFERD_E2E_URL set to the server instead):
#   - a request without X-API-Key, or one that breaks the request schema (an empty
#     batch): Prism answers it itself (its own 401 or 422), never the server's problem;
#   - an integer beyond 2^53 (the README's 12345678901234567890): Prism re-encodes JSON
#     bodies through JavaScript numbers, so it comes back rounded;
#   - GET /openapi.yaml: Prism decodes only JSON bodies, so it checks the YAML text
#     against the document's object schema and reports a violation that is not one.
#
# Needs: bin/inferd (make build), tools/node_modules (make npm-tools),
# sdk/typescript/node_modules (make sdk-ts-deps), node >= 20, curl. `make test-contract`
# does all of that first.
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "contract-test: $*" >&2
	exit 1
}

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || die "node is not installed (need >= 20)"
((node_major >= 20)) || die "node $(node --version) is too old: Prism and the SDK tools need node >= 20"
command -v curl >/dev/null || die "curl is needed"
prism=tools/node_modules/.bin/prism
[[ -x $prism ]] || die "Prism is not installed: run 'make npm-tools'"
[[ -x bin/inferd ]] || die "bin/inferd is missing: run 'make build'"
[[ -d sdk/typescript/node_modules ]] || die "the TypeScript SDK's dependencies are missing: run 'make sdk-ts-deps'"

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

# A port the kernel just handed out and released; a clash with another process that
# grabs it in between fails the start below, loudly.
free_port() {
	node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# wait_for URL STATUS SECONDS LOG: polls until URL answers STATUS.
wait_for() {
	local url=$1 want=$2 secs=$3 log=$4 got i
	for ((i = 0; i < secs * 10; i++)); do
		got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)
		[[ $got == "$want" ]] && return 0
		sleep 0.1
	done
	echo "--- $log" >&2
	tail -n 40 "$log" >&2
	die "$url did not answer $want within ${secs}s (last: $got)"
}

# violations LOG: the lines of a Prism log that report a violation or an error.
violations() {
	grep -E 'Violation|VIOLATIONS|✖|⚠' "$1" || true
}

# start_prism CONTRACT PORT LOG
start_prism() {
	"$prism" proxy "$1" "http://127.0.0.1:$api" --errors --host 127.0.0.1 --port "$2" >"$3" 2>&1 &
	pids+=($!)
	wait_for "http://127.0.0.1:$2/health" 200 90 "$3"
}

api=$(free_port)
env -u QUEUE_URL -u API_KEYS -u API_KEYS_FILE -u INFERD_ENV -u PUBLIC_URL \
	PORT="$api" GRPC_PORT=0 MODELS_DIR=./models RATE_LIMIT_RPS=0 AUTH_FAILURES_PER_MINUTE=0 LOG_LEVEL=warn bin/inferd >"$work/inferd.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$api/ready" 200 60 "$work/inferd.log"

# The canary: Prism in front of the same server with a contract whose Prediction requires
# a field the server never sends, and a request missing a required field.
sed 's/required: \[model, version, result\]/required: [model, version, result, contract_canary]/' \
	openapi.yaml >"$work/wrong.yaml"
cmp -s openapi.yaml "$work/wrong.yaml" && die "canary: Prediction's required list changed; update the sed above"
canary=$(free_port)
start_prism "$work/wrong.yaml" "$canary" "$work/prism-canary.log"
echo "== canary: a Prism with a deliberately wrong contract must report violations"
status=$(curl -s -D "$work/canary.h" -o "$work/canary.b" -w '%{http_code}' -H 'X-API-Key: dev-key' \
	-H 'Content-Type: application/json' -d '{"model":"echo","version":"v1","data":1}' "http://127.0.0.1:$canary/predict")
[[ $status == 500 ]] && grep -qi '^sl-violations:.*contract_canary' "$work/canary.h" ||
	die "canary: a response missing a required field was not reported (status $status: $(cat "$work/canary.b"))"
status=$(curl -s -o "$work/canary.b" -w '%{http_code}' -H 'X-API-Key: dev-key' \
	-H 'Content-Type: application/json' -d '{"model":"echo"}' "http://127.0.0.1:$canary/predict")
[[ $status == 422 ]] && grep -q "required property 'data'" "$work/canary.b" ||
	die "canary: a request missing a required field was not reported (status $status: $(cat "$work/canary.b"))"
n=$(violations "$work/prism-canary.log" | wc -l)
((n >= 2)) || die "canary: the log check found $n violations in the canary's log, want 2"
echo "canary: response and request violations reported ($n log lines)"

proxy=$(free_port)
start_prism openapi.yaml "$proxy" "$work/prism.log"
export INFERD_E2E_URL="http://127.0.0.1:$proxy" INFERD_E2E_DIRECT_URL="http://127.0.0.1:$api"

echo "== TypeScript SDK end to end, through Prism"
(cd sdk/typescript && rm -rf dist && node_modules/.bin/tsc -p . && node --test --test-timeout=120000 dist/test/)

# go_direct NAME PATTERN: runs the Go tests PATTERN selects against the server itself.
go_direct() {
	INFERD_E2E_URL=$INFERD_E2E_DIRECT_URL go test -race -count=1 -timeout=5m -v -run "$2" ./internal/e2etest \
		>"$work/direct-$1.out" 2>&1 || {
		grep -E '^(FAIL|\s*--- FAIL)|_test\.go:' "$work/direct-$1.out" >&2
		die "the direct Go tests ($1) failed (above)"
	}
}

if [[ -d internal/e2etest ]]; then
	# The Go tests whose exchanges Prism cannot carry (see the top of this file) run
	# direct: TestJobNumbersExact and these subtests, each named for what Prism would
	# change.
	direct_whole=TestJobNumbersExact
	direct_tops='TestPredict|TestPredictBatch|TestProblems|TestSystem'
	direct_subs='echo_keeps_numbers_exact|echo_in_order|no_key|empty_batch|contract_as_YAML'
	direct_subtests="^($direct_tops)\$/^($direct_subs)\$"
	through=$(go test -list '^Test' ./internal/e2etest | grep '^Test' | grep -vx "$direct_whole" | paste -sd '|')
	[[ -n $through ]] || die "go test -list found no test in ./internal/e2etest"

	echo "== Go SDK end to end (./internal/e2etest), through Prism"
	go test -race -count=1 -timeout=5m -run "^($through)\$" -skip "$direct_subtests" ./internal/e2etest

	echo "== Go SDK end to end, the tests Prism cannot carry, direct"
	go_direct whole "^$direct_whole\$"
	go_direct subtests "$direct_subtests"
	n=$(grep -Ec "^\s+--- PASS: ($direct_tops)/($direct_subs) " "$work/direct-subtests.out" || true)
	((n == 5)) || die "$n of the 5 direct Go subtests passed; update direct_subs"
	ran=$(cat "$work"/direct-*.out | grep -Ec '^\s*--- PASS' || true)
	echo "direct: $ran Go tests and subtests passed"
fi

exchanges=$(grep -c 'Request received' "$work/prism.log" || true)
found=$(violations "$work/prism.log")
if [[ -n $found ]]; then
	echo "$found" >&2
	die "$exchanges exchanges through Prism, $(wc -l <<<"$found") violations (above)"
fi
((exchanges > 0)) || die "no exchange went through Prism"
echo "contract-test: $exchanges exchanges through Prism, 0 violations"
