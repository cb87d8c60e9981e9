// Package httpapi implements the contract: hand-written handlers behind the strict
// interface generated from openapi.yaml, the middleware that validates requests
// against it (with the API-key check wired in), limits, request ids, logs and metrics.
// It is the one place where domain errors become problem+json responses.
package httpapi
