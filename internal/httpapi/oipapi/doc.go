// Package oipapi serves the Open Inference Protocol (KServe v2, as Triton speaks it)
// under /v2: server and model metadata and readiness, infer calls in JSON and with
// the binary data extension, and Triton's model configuration, statistics and model
// repository extensions, over what the registry knows. internal/oip is the protocol's
// codec, and its Service answers metadata and readiness as over gRPC; httpapi mounts these handlers, validates their requests and writes their
// errors in the protocol's shape.
package oipapi
