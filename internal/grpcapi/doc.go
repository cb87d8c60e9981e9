// Package grpcapi serves the Open Inference Protocol over gRPC (api/inference.proto):
// the calls of KServe's and Triton's GRPCInferenceService over the same registry,
// keys, limits, dynamic batcher and problem wording as the REST API: metadata,
// readiness and Triton's extensions from the service /v2 answers them with
// (internal/oip's Service), every call admitted by the admission REST's gate asks
// (internal/admission), errors worded by internal/problem's Wording. It imports
// nothing of the REST server (internal/httpapi).
package grpcapi
