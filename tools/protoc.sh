#!/usr/bin/env bash
# Generates gen/inference from api/inference.proto with protoc (Debian's
# protobuf-compiler) and the Go plugins pinned in tools/go.mod, built here so the
# output depends on nothing but those pins. Run by `make generate` (go generate).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v protoc >/dev/null || { echo "protoc is missing: apt-get install protobuf-compiler" >&2; exit 1; }
plugins="$(mktemp -d)"
trap 'rm -rf "$plugins"' EXIT
(cd "$root/tools" && GOFLAGS="${GOFLAGS:-} -mod=mod" go build -o "$plugins/" \
  google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc)
cd "$root"
protoc --proto_path=api \
  --plugin=protoc-gen-go="$plugins/protoc-gen-go" --plugin=protoc-gen-go-grpc="$plugins/protoc-gen-go-grpc" \
  --go_out=gen/inference --go_opt=paths=source_relative \
  --go-grpc_out=gen/inference --go-grpc_opt=paths=source_relative \
  inference.proto
