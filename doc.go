// Package inferd holds the service's contract, openapi.yaml, embedded byte for byte so
// the server publishes exactly the document it was generated from.
package inferd

import (
	_ "embed"

	"github.com/getkin/kin-openapi/openapi3"
)

// OpenAPI is openapi.yaml, the source of truth for every endpoint.
//
//go:embed openapi.yaml
var OpenAPI []byte

// Contract parses OpenAPI and checks it. Unlike the spec that oapi-codegen embeds in
// gen/api, it keeps the documentation operations and the contract's own operationIds.
func Contract() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(OpenAPI)
	if err != nil {
		return nil, err
	}
	if err := spec.Validate(loader.Context); err != nil {
		return nil, err
	}
	return spec, nil
}
