// Package inferd holds the service's contract, openapi.yaml, embedded byte for byte so
// the server publishes exactly the document it was generated from.
package inferd

import (
	_ "embed"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// OpenAPI is openapi.yaml, the source of truth for every endpoint.
//
//go:embed openapi.yaml
var OpenAPI []byte

// AnyValue names the contract's schema for any JSON value, null included.
const AnyValue = "AnyValue"

// Contract parses OpenAPI and checks it. Unlike the spec that oapi-codegen embeds in
// gen/api, it keeps the documentation operations and the contract's own operationIds.
// Its AnyValue admits null (NullableAnyValue).
func Contract() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(OpenAPI)
	if err != nil {
		return nil, err
	}
	// Before Validate, which checks the examples: theirs hold nulls.
	if err := NullableAnyValue(spec); err != nil {
		return nil, err
	}
	if err := spec.Validate(loader.Context); err != nil {
		return nil, err
	}
	return spec, nil
}

// NullableAnyValue makes kin-openapi read the contract's AnyValue as OpenAPI 3.0.3
// does, and must be applied to every copy of the contract kin-openapi validates with.
//
// AnyValue is a schema without `type`: no keyword restricts the value, so every JSON
// value is valid, null included, and that is how the linters, Prism and the client
// generators read it. `nullable: true` cannot say it in the file: 3.0.3 gives it effect
// only beside a `type`, and both linters refuse it without one. kin-openapi, though,
// refuses null for any schema whose `nullable` is not set, so this sets it on the
// parsed copy. It fails when AnyValue is missing or says more than "any value".
func NullableAnyValue(spec *openapi3.T) error {
	ref := spec.Components.Schemas[AnyValue]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("the contract has no %s schema", AnyValue)
	}
	bare := *ref.Value
	bare.Nullable = false // set by an earlier call
	if !bare.IsEmpty() {
		return fmt.Errorf("the contract's %s restricts its values: it must be a schema without type", AnyValue)
	}
	ref.Value.Nullable = true
	return nil
}
