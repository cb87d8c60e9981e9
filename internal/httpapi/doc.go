// Package httpapi implements the contract: the router, and the hand-written handlers
// behind the strict interface generated from openapi.yaml, with the middleware around
// them: the API-key gate, limits, request ids, logs, metrics and traces. It is the one
// place where domain errors become problem+json responses, of the kind and code
// internal/problem classifies them as. Its packages hold the rest: operation (the
// contract's operations, read once), validator (requests checked against the
// contract), oipapi (the Open Inference Protocol's handlers) and unescape (HTML
// escapes undone in the generated handlers' answers).
package httpapi
