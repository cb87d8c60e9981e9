// Package grpcapi serves the Open Inference Protocol over gRPC (api/inference.proto):
// the calls of KServe's and Triton's GRPCInferenceService over the same registry,
// keys, limits, dynamic batcher and problem wording as the REST API, whose handlers
// (internal/httpapi) it calls for everything but the tensors of ModelInfer.
package grpcapi
