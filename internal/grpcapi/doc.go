// Package grpcapi serves the Open Inference Protocol over gRPC (api/inference.proto):
// the calls of KServe's and Triton's GRPCInferenceService over the same registry,
// keys, limits, dynamic batcher and problem wording as the REST API: metadata and
// readiness from the service /v2 answers them with (internal/oip's Service), the
// extensions' calls through the REST handlers (internal/httpapi).
package grpcapi
