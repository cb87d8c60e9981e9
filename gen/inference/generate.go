// Package inference is generated from api/inference.proto by protoc and the Go plugins
// pinned in tools/go.mod: the Open Inference Protocol's gRPC messages, client and
// server interface. Never edit it; `make generate` rewrites it.
package inference

//go:generate bash ../../tools/protoc.sh
