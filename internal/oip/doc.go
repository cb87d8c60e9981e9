// Package oip is the wire format of the Open Inference Protocol v2 (KServe v2, Triton
// HTTP/REST): inference requests and responses in JSON, and Triton's binary tensor data
// extension, in which raw little-endian tensors follow a JSON header. It turns a
// request into the registry's named tensors and the registry's outputs into a response,
// refusing with ErrInvalid (as an *Error that says which tensor and what was expected)
// anything that does not fit the protocol. Its Service answers the protocol's calls
// about the server and its models (metadata, readiness) for both transports, oipapi's
// /v2 and grpcapi's service, over the registry as Models, an interface it declares, so
// that the protocol imports no registry (serve holds the types both share).
//
// The protocol: https://github.com/kserve/open-inference-protocol/blob/main/specification/protocol/inference_rest.md
// and https://github.com/triton-inference-server/server/blob/main/docs/protocol/extension_binary_data.md
package oip
