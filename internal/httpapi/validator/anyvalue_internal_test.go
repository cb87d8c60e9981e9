package validator

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/gen/api"
)

// TestAnyValueSchemas checks the contract's AnyValue: as written it is a schema without
// type that restricts nothing (what the client generators read as any value), and the
// copies kin-openapi validates with (the validator's, and inferd.Contract's for the
// tests) accept exactly the JSON values, nested nulls included.
func TestAnyValueSchemas(t *testing.T) {
	loader := openapi3.NewLoader()
	written, err := loader.LoadFromData(inferd.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	raw := written.Components.Schemas[inferd.AnyValue].Value
	if raw == nil || !raw.IsEmpty() {
		t.Fatalf("openapi.yaml's %s restricts its values; want a schema without type: %+v", inferd.AnyValue, raw)
	}
	// Why NullableAnyValue exists: kin-openapi refuses null for a schema that does not
	// say nullable. When it no longer does, NullableAnyValue can go.
	if err := raw.VisitJSON(nil); err == nil {
		t.Errorf("kin-openapi accepts null for %s as written: inferd.NullableAnyValue is no longer needed", inferd.AnyValue)
	}

	validator, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if err := inferd.NullableAnyValue(validator); err != nil {
		t.Fatal(err)
	}
	contract, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*openapi3.Schema{
		"validator's": validator.Components.Schemas[inferd.AnyValue].Value,
		"contract's":  contract.Components.Schemas[inferd.AnyValue].Value,
	}

	values := []string{
		`null`, `0`, `-1.5e300`, `12345678901234567890`, `""`, `"x"`, `true`, `false`,
		`[]`, `[null]`, `[[null, 1], {"a": null}]`, `{}`, `{"a": {"b": [null, "c"]}}`,
	}
	for _, v := range values {
		t.Run(v, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(v))
			dec.UseNumber()
			var x any
			if err := dec.Decode(&x); err != nil {
				t.Fatal(err)
			}
			for name, s := range schemas {
				if err := s.VisitJSON(x); err != nil {
					t.Errorf("%s AnyValue rejects %s: %v", name, v, err)
				}
			}
		})
	}
	// What is not JSON: a NaN or an infinity (no JSON decoder produces them).
	for _, x := range []any{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for name, s := range schemas {
			if err := s.VisitJSON(x); err == nil {
				t.Errorf("%s AnyValue accepts %v, which is not JSON", name, x)
			}
		}
	}
}

// TestNullableAnyValueRefusesARestrictedSchema: an AnyValue that says more than "any
// value" (the recursive anyOf of contract 1.1.0 to 1.3.0, or a type) is refused rather
// than made nullable.
func TestNullableAnyValueRefusesARestrictedSchema(t *testing.T) {
	for name, s := range map[string]*openapi3.Schema{
		"typed": openapi3.NewObjectSchema(),
		"anyOf": {AnyOf: openapi3.SchemaRefs{{Value: openapi3.NewStringSchema()}, {Value: openapi3.NewFloat64Schema()}}},
	} {
		spec := &openapi3.T{Components: &openapi3.Components{Schemas: openapi3.Schemas{inferd.AnyValue: {Value: s}}}}
		if err := inferd.NullableAnyValue(spec); err == nil {
			t.Errorf("%s: NullableAnyValue accepted it", name)
		}
	}
	spec := &openapi3.T{Components: &openapi3.Components{Schemas: openapi3.Schemas{inferd.AnyValue: {Value: &openapi3.Schema{Description: "any"}}}}}
	for range 2 { // a second call finds it nullable already
		if err := inferd.NullableAnyValue(spec); err != nil || !spec.Components.Schemas[inferd.AnyValue].Value.Nullable {
			t.Fatalf("NullableAnyValue on a schema without type: %v", err)
		}
	}
}
