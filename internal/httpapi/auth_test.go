package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestAuthMatrix sends every operation with every class of key through the full
// router and checks the 200/401/403 that SPEC.md's scope column implies.
func TestAuthMatrix(t *testing.T) {
	h := newHarness(t)
	var sub struct {
		JobID string `json:"job_id"`
	}
	h.c.Post("/predict/async", keyAdmin, map[string]any{"model": "echo", "data": 1}).JSON(t, &sub)

	single := map[string]any{"model": "echo", "data": "x"}
	batch := map[string]any{"model": "echo", "items": []any{1}}
	endpoints := []struct {
		method, path string
		body         any
		scope        string // "" public, "any" any valid key
	}{
		{"POST", "/predict", single, "predict"},
		{"POST", "/predict/batch", batch, "predict"},
		{"POST", "/predict/async", single, "predict"},
		{"POST", "/predict/async/batch", batch, "predict"},
		{"GET", "/predict/async/" + sub.JobID, nil, "any"},
		{"GET", "/jobs/" + sub.JobID, nil, "any"},
		{"DELETE", "/predict/async/" + sub.JobID, nil, "predict"},
		{"GET", "/models", nil, "read_models"},
		{"GET", "/health", nil, ""},
		{"GET", "/ready", nil, ""},
		{"GET", "/metrics", nil, ""},
		{"GET", "/debug/models/loaded", nil, "admin"},
		{"POST", "/admin/models/echo/v1/reload", nil, "admin"},
		{"GET", "/admin/models/memory", nil, "admin"},
		{"GET", "/openapi.yaml", nil, ""},
		{"GET", "/openapi.json", nil, ""},
		{"GET", "/docs", nil, ""},
	}
	keys := []struct {
		class, key string
		scopes     []string
	}{
		{"none", "", nil},
		{"unknown", keyUnknown, nil},
		{"predict-only", keyPredict, []string{"predict"}},
		{"read_models-only", keyRead, []string{"read_models"}},
		{"admin", keyAdmin, []string{"predict", "read_models", "admin"}},
	}
	for _, e := range endpoints {
		for _, k := range keys {
			want := http.StatusOK
			if e.method == http.MethodDelete {
				want = http.StatusConflict // the job has finished: an authorized cancel gets 409
			}
			switch {
			case e.scope == "":
			case k.scopes == nil:
				want = http.StatusUnauthorized
			case e.scope != "any" && !slices.Contains(k.scopes, e.scope):
				want = http.StatusForbidden
			}
			t.Run(fmt.Sprintf("%s %s/%s", e.method, e.path, k.class), func(t *testing.T) {
				resp := h.c.Do(h.c.NewRequest(e.method, e.path, k.key, e.body))
				if resp.Status != want {
					t.Fatalf("status %d, want %d: %s", resp.Status, want, resp.Body)
				}
				switch want {
				case http.StatusUnauthorized:
					if p := resp.Problem(t); p.Code != "unauthorized" {
						t.Errorf("code %q, want unauthorized", p.Code)
					}
				case http.StatusForbidden:
					if p := resp.Problem(t); p.Code != "forbidden" {
						t.Errorf("code %q, want forbidden", p.Code)
					}
				}
			})
		}
	}
}
