package validator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/operation"
)

// TestOIPPlain: both infer operations have a plain case, and every request it passes
// kin-openapi passes too (with the key accepted, as the gate found it), so skipping
// kin-openapi changes no answer; what it does not pass is left to kin-openapi.
func TestOIPPlain(t *testing.T) {
	spec, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if err := inferd.NullableAnyValue(spec); err != nil {
		t.Fatal(err)
	}
	contract, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := operation.Read(contract)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := contractRoutes(spec, ops)
	if err != nil {
		t.Fatal(err)
	}
	accept := func(context.Context, *openapi3filter.AuthenticationInput) error { return nil }
	long := strings.Repeat("m", 129)
	tests := []struct {
		name, model, version, header string
		headers                      int // how many times the header is sent
		authed, want                 bool
	}{
		{"plain JSON", "iris", "v1", "", 0, true, true},
		{"binary", "iris", "v1", "152", 1, true, true},
		{"header 0", "iris", "v1", "0", 1, true, true},
		{"key not checked by the gate", "iris", "v1", "", 0, false, false},
		{"header not a number", "iris", "v1", "x", 1, true, false},
		{"header negative", "iris", "v1", "-1", 1, true, false},
		{"header with a leading zero", "iris", "v1", "01", 1, true, false},
		{"header twice", "iris", "v1", "1", 2, true, false},
		{"name too long", long, "v1", "", 0, true, false},
		{"version too long", "iris", long, "", 0, true, false},
		{"name of 128 bytes", long[:128], "v1", "", 0, true, true},
		{"name of 128 characters in more bytes", strings.Repeat("é", 128), "v1", "", 0, true, false},
	}
	found := 0
	for _, o := range ops.All() {
		if !o.OIP {
			continue
		}
		found++
		route := routes[o]
		plain, ok := newOIPPlain(spec, route)
		if !ok {
			t.Errorf("%s: no plain case; every request would take kin-openapi", route.Operation.OperationID)
			continue
		}
		for _, tt := range tests {
			t.Run(route.Operation.OperationID+" "+tt.name, func(t *testing.T) {
				params := map[string]string{"model_name": tt.model}
				if strings.Contains(o.Pattern, "{model_version}") {
					params["model_version"] = tt.version
				} else if tt.version != "v1" {
					t.Skip("no version in this path")
				}
				r := httptest.NewRequest(http.MethodPost, "/v2/models/m/infer", nil)
				for range tt.headers {
					r.Header.Add("Inference-Header-Content-Length", tt.header)
				}
				got := plain.passes(r, params, tt.authed)
				if got != tt.want {
					t.Errorf("passes = %v, want %v", got, tt.want)
				}
				if !got {
					return
				}
				if err := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
					Request: r, PathParams: params, Route: route,
					Options: &openapi3filter.Options{AuthenticationFunc: accept, ExcludeRequestBody: true},
				}); err != nil {
					t.Errorf("the plain case passes what kin-openapi refuses: %v", err)
				}
			})
		}
	}
	// An optional header of another kind (Request-Timeout) is left to kin-openapi,
	// valid or not.
	for _, o := range ops.All() {
		if !o.OIP {
			continue
		}
		if plain, ok := newOIPPlain(spec, routes[o]); ok {
			for _, v := range []string{"2.5", "soon"} {
				r := httptest.NewRequest(http.MethodPost, "/v2/models/m/infer", nil)
				r.Header.Set("Request-Timeout", v)
				if plain.passes(r, map[string]string{"model_name": "iris", "model_version": "v1"}, true) {
					t.Errorf("%s: Request-Timeout %q passes without kin-openapi", o.ID, v)
				}
			}
		}
	}
	if found != 2 {
		t.Errorf("%d infer operations, want 2", found)
	}
}
