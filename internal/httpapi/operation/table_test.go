package operation_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/operation"
)

// TestRead: what the table says of a few operations of openapi.yaml, one of each kind.
func TestRead(t *testing.T) {
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := operation.Read(spec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, pattern string
		want            operation.Operation
	}{
		{http.MethodPost, "/predict", operation.Operation{ID: "predict", Scope: auth.ScopePredict, Secured: true, FastPath: true}},
		{http.MethodPost, "/v2/models/{model_name}/infer", operation.Operation{ID: "oipInfer", Scope: auth.ScopePredict, Secured: true, OIP: true}},
		{http.MethodGet, "/health", operation.Operation{ID: "health"}},
		{http.MethodPost, "/admin/models/{name}/{version}/reload", operation.Operation{ID: "reloadModel", Scope: auth.ScopeAdmin, Secured: true, Bodyless: true}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.pattern, func(t *testing.T) {
			got := ops.Lookup(tt.method, tt.pattern)
			if got == nil {
				t.Fatal("not in the table")
			}
			if got.ID != tt.want.ID || got.Method != tt.method || got.Pattern != tt.pattern || got.Scope != tt.want.Scope ||
				got.Secured != tt.want.Secured || got.Bodyless != tt.want.Bodyless || got.FastPath != tt.want.FastPath || got.OIP != tt.want.OIP {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
			if id, ok := ops.ID(tt.method, tt.pattern); !ok || id != tt.want.ID {
				t.Errorf("ID = %q, %v", id, ok)
			}
		})
	}
	if got := ops.Lookup(http.MethodHead, "/health"); got != nil {
		t.Errorf("HEAD /health is in the table: %+v", got)
	}
	ops.Alias(http.MethodGet, "/docs/*", "docs")
	if id, ok := ops.ID(http.MethodGet, "/docs/*"); !ok || id != "docs" || ops.Lookup(http.MethodGet, "/docs/*") != nil {
		t.Errorf("the alias: ID %q %v; it must be for ID alone", id, ok)
	}
	if ids := ops.WithScope(auth.ScopePredict); !slices.IsSorted(ids) || !slices.Contains(ids, "predictBatch") || slices.Contains(ids, "health") {
		t.Errorf("WithScope(predict) = %v", ids)
	}
}
