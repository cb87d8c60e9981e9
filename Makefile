# inferd: `make run` serves the example models with in-process jobs; `make test` runs
# every test; `make help` lists every target. Plain `make` builds the binaries. Tools
# are pinned in tools/go.mod and run with `go tool`. A target's `## name: ...` comment
# above its rule is what `make help` prints for it.
GO        ?= go
TOOLS     := $(GO) tool -modfile=tools/go.mod
BIN       := bin
PORT      ?= 8080
# --version reports these; without git (a source archive) the binary says dev.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
# tools/deploycheck imports this module (tools/go.mod replaces it with ../), so a
# dependency added to go.mod must reach tools/go.mod too: with -mod=mod the tools
# commands record it there (commit the change) rather than fail on a missing go.sum entry.
TOOLSENV  := GOFLAGS="$$GOFLAGS -mod=mod"
LDFLAGS   := -X github.com/inferd/inferd/internal/build.Version=$(VERSION) -X github.com/inferd/inferd/internal/build.commit=$(COMMIT)

.PHONY: help check-rules check-metrics check-dashboard all generate generate-ts check-generated check-generators npm-tools sdk-ts-deps lint-contract lint-docker check-compose check-kubernetes docs check-breaking fuzz fuzz-contract check-float32 test-contract build run test test-short test-browser screenshots lint bench bench-compare bench-http bench-cluster onnxruntime models clean cosign

# Plain `make` is quick: it builds the binaries and says so; `make all` checks everything.
.DEFAULT_GOAL := build

## all: the checks CI starts with: generated code fresh, lint, the contract's linters,
## no breaking change, and every test
all: check-generated lint lint-contract check-breaking test

## help: this list, from the `## target: ...` comment above each rule of the Makefile
help:
	@awk '/^## / { sub(/^## /, ""); if (!more) { i = index($$0, ":"); printf "  %-18s %s\n", substr($$0, 1, i - 1), substr($$0, i + 2) } \
	  else printf "  %-18s %s\n", "", $$0; more = 1; next } { more = 0 }' $(firstword $(MAKEFILE_LIST))

## generate: rewrite gen/ and the TypeScript SDK's types from openapi.yaml
generate: generate-ts
	$(GO) generate ./gen/...

## generate-ts: rewrite sdk/typescript/src/schema.ts from openapi.yaml (openapi-typescript's
## own output: its CLI, no transform)
generate-ts: sdk-ts-deps
	cd sdk/typescript && npm run --silent generate

## docs: rewrite the settings table, docs/settings.md, from internal/config
docs:
	$(GO) generate ./internal/config

## check-generated: fail when gen/ or the TypeScript types are stale against openapi.yaml
check-generated: generate
	@if [ -n "$$(git status --porcelain -- gen sdk/typescript/src/schema.ts)" ]; then \
	  git status --short -- gen sdk/typescript/src/schema.ts; git diff --stat -- gen sdk/typescript/src/schema.ts; \
	  echo "generated code is stale: run 'make generate' and commit the result"; exit 1; fi
	@echo "gen/ and sdk/typescript/src/schema.ts are up to date"

## check-generators: stock client generators on openapi.yaml, with no project-specific
## transform: openapi-typescript and @hey-api/openapi-ts (strict tsc), ogen and oapi-codegen
## (go build); each client's program (tools/generators) predicts, submits and reads a job,
## and reads a problem's code against a live inferd (tools/check-generators.sh)
check-generators: build npm-tools
	bash tools/check-generators.sh

## npm-tools: the npm tools pinned in tools/package.json (linters, proxy, browser driver,
## the TypeScript generators and tsc)
npm-tools: tools/node_modules/.package-lock.json
tools/node_modules/.package-lock.json: tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error

## sdk-ts-deps: the TypeScript SDK's dependencies, pinned in sdk/typescript/package-lock.json
sdk-ts-deps: sdk/typescript/node_modules/.package-lock.json
sdk/typescript/node_modules/.package-lock.json: sdk/typescript/package.json sdk/typescript/package-lock.json
	cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error

## lint-contract: Spectral (spectral:oas) and Redocly (recommended) on openapi.yaml; any warning fails
lint-contract: npm-tools
	bash tools/lint-contract.sh openapi.yaml

## lint-docker: dockerfilelint (pinned in tools/package.json) on deploy/Dockerfile, a canary
## it must fail, and a non-root USER and a HEALTHCHECK in the image's last stage
lint-docker: npm-tools
	bash tools/lint-docker.sh deploy/Dockerfile

## check-compose: docker-compose config on deploy/compose.yaml, alone and with deploy/compose.bucket.yaml,
## then TestCompose (tools/deploycheck): services, settings, secrets, mounts, Prometheus targets
## and the bucket's gateway and upload as docker-compose reads them
check-compose:
	@command -v docker-compose >/dev/null || { echo "check-compose: docker-compose is missing (Debian package docker-compose)"; exit 1; }
	docker-compose -f deploy/compose.yaml config --quiet
	docker-compose -f deploy/compose.yaml -f deploy/compose.bucket.yaml config --quiet
	cd tools && $(TOOLSENV) $(GO) test -count=1 -v -run '^TestCompose$$' ./deploycheck
	@echo "check-compose: docker-compose $$(docker-compose version --short) accepts deploy/compose.yaml and deploy/compose.bucket.yaml, TestCompose passed"

## check-kubernetes: deploy/kubernetes decoded strictly into the Kubernetes API types (KEDA's
## ScaledObject against the schema of KEDA's CRD), checked against the settings inferd reads and
## the image, and the overlays of deploy/kustomize rendered by kubectl kustomize and checked alike
## (tools/deploycheck)
check-kubernetes:
	cd tools && $(TOOLSENV) $(GO) test -count=1 -v -run '^(TestImage|TestKubernetesStrictDecoding|TestScaledObjectStrictDecoding|TestKubernetesManifests|TestKubernetesAutoscaling|TestKubernetesNetworkPolicy|TestKustomizeOverlays|TestSecretReadable)$$' ./deploycheck
	@echo "check-kubernetes: deploy/kubernetes/*.yaml decode strictly and pass TestKubernetesManifests; the overlays render and pass too"

## check-breaking: fail when openapi.yaml breaks clients of the last release's contract
## (docs/api/openapi-v1.0.0.yaml) without a new major info.version; then the check's self-test
check-breaking:
	bash tools/breaking-check.sh docs/api/openapi-v1.0.0.yaml openapi.yaml
	bash tools/breaking-check.sh --self-test

## fuzz: each native Go fuzz target for FUZZTIME (TestFuzzTargets holds the list to the module's) (-fuzz takes one target per package run);
## the committed corpora under testdata/fuzz/ also run as plain tests in `make test`
FUZZTIME    ?= 50000x
FUZZTARGETS := FuzzParse:./internal/auth FuzzParseConfig:./internal/repository \
               FuzzSteps:./internal/pipeline/step FuzzOnePassMatchesValidator:./internal/httpapi/validator \
               FuzzDecode:./internal/oip FuzzFastFloat:./internal/oip \
               FuzzValid:./internal/jsonscan FuzzCheck:./internal/jsonscan FuzzValueEnd:./internal/jsonscan \
               FuzzStringEnd:./internal/jsonscan FuzzMembers:./internal/jsonscan FuzzElements:./internal/jsonscan \
               FuzzHugeNumber:./internal/jsonscan FuzzBeyondDouble:./internal/jsonscan \
               FuzzUnescapeHTML:./internal/jsonscan FuzzPlain:./internal/jsonscan FuzzCheckDeferring:./internal/jsonscan \
               FuzzCanonical:./internal/jsonscan FuzzCanonicalNumber:./internal/jsonscan \
               FuzzAppendFloat32:./internal/tensor FuzzCodecUnmarshal:./internal/grpcapi \
               FuzzParseSums:./internal/mirror FuzzReadONNX:./internal/modelfile FuzzOpen:./internal/backend/xgboost
fuzz:
	@set -e; for t in $(FUZZTARGETS); do \
	  echo "fuzz: $${t%%:*} in $${t#*:} for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$${t%%:*}$$" -fuzztime $(FUZZTIME) "$${t#*:}"; \
	done; echo "fuzz: $(words $(FUZZTARGETS)) targets passed, $(FUZZTIME) each"

## check-float32: the JSON spelling of every one of the 2^32 float32 bit patterns
## (tensor.AppendFloat32) against strconv's, sharded over the CPUs; go test checks a
## sample of them
check-float32:
	$(GO) test -count=1 -timeout 60m -run '^TestAppendFloat32All$$' -v ./internal/tensor -float32.all

## fuzz-contract: generated valid and invalid requests for every operation of openapi.yaml,
## sent to the inferd binary; FUZZ_REQUESTS per operation, FUZZ_SEED picks them
FUZZ_REQUESTS ?= 300
FUZZ_SEED     ?= 1
fuzz-contract: onnxruntime
	CONTRACTFUZZ_REQUESTS=$(FUZZ_REQUESTS) CONTRACTFUZZ_SEED=$(FUZZ_SEED) \
	  $(GO) test -race -count=1 -v -run '^TestContractFuzz$$' ./internal/contractfuzz

## test-contract: the SDK end-to-end tests against a live inferd through Prism (validating proxy)
test-contract: build onnxruntime npm-tools sdk-ts-deps
	bash tools/contract-test.sh

## build: the server, the worker and inferctl into bin/, stamped with the version and commit
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...
	@echo "build: $(BIN)/inferd, $(BIN)/inferd-worker and $(BIN)/inferctl, version $(VERSION); 'make run' serves the example models, 'make help' lists every target"

## run: serve models/ and echo on :$(PORT) with in-process jobs
run: build onnxruntime
	PORT=$(PORT) MODELS_DIR=$${MODELS_DIR:-./models} $(BIN)/inferd

## test: every test, with the race detector (the benchmark harness and the checks of deploy/
## live in the tools module). TEST_SKIP leaves out the tests it matches (go test -skip): CI
## passes TestContractFuzz, which make fuzz-contract runs longer after it. TEST_TIMEOUT
## bounds each package's run: internal/app's binaries over real sockets take about 5
## minutes on two quiet cores, past go test's default of 10 on two busy ones
TEST_SKIP    ?=
TEST_TIMEOUT ?= 30m
test: onnxruntime cosign
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(if $(TEST_SKIP),-skip '$(TEST_SKIP)') ./...
	cd tools && $(TOOLSENV) $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./benchhttp/... ./deploycheck/... ./monitoring/...

## cosign: compile cosign, pinned in its own module (tools/cosign/go.mod) so that its
## dependencies leave the other tools' alone, into the build cache: the tests that sign
## with it build it again in seconds instead of spending their timeout on a cold build
cosign:
	cd tools/cosign && GOFLAGS=-mod=mod $(GO) build -o /dev/null github.com/sigstore/cosign/v2/cmd/cosign

## test-short: what to run on every change, in under a minute: every package's tests with
## -short, leaving to make test those that build and run the binaries, soak Redis or wait
## out real time (each says so when it skips), the race detector, which triples the time,
## and go test's vet checks (make lint runs go vet)
test-short: onnxruntime
	$(GO) test -short -count=1 -vet=off ./...

## test-browser: Swagger UI at /docs in headless Chromium (tools/browser); with CI=true a missing chromium fails
test-browser: npm-tools onnxruntime build
	INFERD_BIN=$(CURDIR)/$(BIN)/inferd node --test tools/browser/

## screenshots: refresh docs/screenshots/, the Swagger UI pictures of README.md and docs/api.md, with the browser test
screenshots: npm-tools onnxruntime build
	SCREENSHOTS=docs/screenshots INFERD_BIN=$(CURDIR)/$(BIN)/inferd node --test tools/browser/

## bench: the benchmarks
bench: onnxruntime
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-cluster: the capacity model: N servers x M workers on a local Redis Cluster
## (BenchmarkRedisCluster, optimised binaries); writes its section of docs/benchmarks.md
bench-cluster: build
	BENCH_CLUSTER_OUT=$(CURDIR)/docs/benchmarks.md INFERD_BIN_DIR=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkRedisCluster$$' -benchtime 3000x -timeout 20m ./internal/app/queuetest

## bench-compare: the Go benchmarks matching BENCH (all), with allocations, at commit BASE
## (c987ba0, the tree before issue 29's changes) and now, compared by benchstat
bench-compare: onnxruntime
	bash tools/benchcompare.sh $(or $(BASE),c987ba0) '$(or $(BENCH),.)' '$(or $(BENCH_PKGS),./internal/httpapi ./internal/oip ./internal/backend/onnx ./internal/tensor)' $(or $(BENCH_COUNT),6)

## bench-http: the HTTP benchmark harness (tools/benchhttp) against the built binaries;
## writes docs/benchmarks.md and docs/benchmarks.svg. BENCH_ARGS passes flags
## (-duration 3s, -rounds 3, -conns 1,16,64, -mem-total 1000000, -out docs; see -h).
BENCH_ARGS ?=
bench-http: build onnxruntime
	cd tools && $(GO) build -o ../$(BIN)/benchhttp ./benchhttp
	$(BIN)/benchhttp -bin $(BIN) -models models -command 'make bench-http$(if $(BENCH_ARGS), BENCH_ARGS="$(BENCH_ARGS)")' $(BENCH_ARGS)

## lint: go vet and staticcheck
lint:
	$(GO) vet ./...
	$(TOOLS) staticcheck ./...
	cd tools && $(TOOLSENV) $(GO) vet ./benchhttp/... ./deploycheck/... ./monitoring/... && $(TOOLSENV) $(GO) tool staticcheck ./benchhttp/... ./deploycheck/... ./monitoring/...
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/')); if [ -n "$$out" ]; then echo "gofmt: $$out"; exit 1; fi

## check-rules: promtool check rules and promtool test rules (the unit tests beside
## them) on the alert rules in deploy/prometheus/ (Debian package prometheus)
check-rules:
	@command -v promtool >/dev/null 2>&1 || { echo "check-rules: promtool is missing (Debian package prometheus)"; exit 1; }
	promtool check rules deploy/prometheus/rules.yaml
	cd deploy/prometheus && promtool test rules rules_test.yaml
	@echo "check-rules: deploy/prometheus/rules.yaml passes promtool check rules and its unit tests"

## check-metrics: promtool check metrics on the /metrics of a live server and worker
## (queue mode, the example models) after some traffic (tools/monitoring)
check-metrics: onnxruntime
	cd tools && CI=$${CI:-true} $(GO) test -count=1 -v -run '^TestPromtoolCheckMetrics$$' ./monitoring/

## check-dashboard: every query of the Grafana dashboard and the alert rules parses with
## the Prometheus parser and names metrics a live server or worker exports, and a real
## Prometheus scraping them under load returns data for every panel (tools/monitoring)
check-dashboard: onnxruntime
	cd tools && CI=$${CI:-true} $(GO) test -count=1 -v -run '^(TestEveryExpressionParses|TestMetricNamesRejects|TestDashboardAgainstPrometheus)$$' ./monitoring/

## onnxruntime: install the ONNX Runtime shared library into .onnxruntime/ when missing
onnxruntime:
	@if [ -x tools/onnxruntime.sh ] || [ -f tools/onnxruntime.sh ]; then bash tools/onnxruntime.sh; fi

## models: rebuild the example models from scikit-learn's bundled data sets
models:
	/usr/bin/python3 tools/build-models.py

## clean: remove the binaries (bin/)
clean:
	rm -rf $(BIN)
