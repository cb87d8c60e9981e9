package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/inferd/inferd/gen/api"
)

// TestAnyValueSchemas checks that the validator's simplified AnyValue accepts exactly
// what the contract's own anyOf accepts: every JSON value, nested nulls included.
func TestAnyValueSchemas(t *testing.T) {
	contract, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	simplified, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	simplifyAnyValue(simplified)
	full := contract.Components.Schemas[anyValueSchema].Value
	fast := simplified.Components.Schemas[anyValueSchema].Value
	if len(full.AnyOf) == 0 || len(fast.AnyOf) != 0 {
		t.Fatalf("want the contract's anyOf and a simplified copy; got %d and %d branches", len(full.AnyOf), len(fast.AnyOf))
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
			if err := full.VisitJSON(x); err != nil {
				t.Errorf("contract's AnyValue rejects %s: %v", v, err)
			}
			if err := fast.VisitJSON(x); err != nil {
				t.Errorf("validator's AnyValue rejects %s: %v", v, err)
			}
		})
	}
}
