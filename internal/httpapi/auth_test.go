package httpapi_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/inferd/inferd"
)

// authCall is how TestAuthMatrix calls one operation: what the contract cannot say.
// Who may call it comes from the contract alone.
type authCall struct {
	path  string // the path, when not the contract's filled with echo v1
	query string // appended to the path, e.g. "?seconds=1"
	body  any
	ok    int    // the status of an authorized call; 0 means 200
	skip  string // why the operation cannot be called from this harness
}

// TestAuthMatrix sends every operation of openapi.yaml with every class of key through
// the full router. The answer it expects comes from the operation's `security` (an
// empty list: public) and `x-required-scope` (none: any valid key): 401 without a
// valid key, 403 without the scope, else the operation's own answer. An operation of
// the contract missing from the table below fails the test.
func TestAuthMatrix(t *testing.T) {
	// spare is the model the repository's unload takes away, so that the operations
	// after it still find echo.
	h := newHarness(t, func(s *setup) {
		s.sources = append(s.sources, testModel("spare", func(_ context.Context, b []any) ([]any, error) { return b, nil }))
	})
	var sub struct {
		JobID string `json:"job_id"`
	}
	// Submitted by the predict-only key: it cancels its own jobs, the admin key any.
	h.c.Post("/predict/async", keyPredict, map[string]any{"model": "echo", "data": 1}).JSON(t, &sub)

	single := map[string]any{"model": "echo", "data": "x"}
	batch := map[string]any{"model": "echo", "items": []any{1}}
	infer := `{"inputs":[{"name":"x","shape":[1],"datatype":"INT32","data":[7]}]}`
	calls := map[string]authCall{
		"predict":        {body: single},
		"predictBatch":   {body: batch},
		"submitJob":      {body: single},
		"submitBatchJob": {body: batch},
		"pollJob":        {},
		"getJob":         {},
		// the job has finished: an authorized cancel gets 409
		"cancelJob":                 {ok: http.StatusConflict},
		"listModels":                {},
		"getModel":                  {},
		"health":                    {},
		"ready":                     {},
		"metrics":                   {},
		"listLoadedModels":          {},
		"reloadModel":               {},
		"explainPrediction":         {body: map[string]any{"data": "x"}},
		"modelMemory":               {},
		"queueUI":                   {skip: "served in queue mode only; its auth is tested with the dashboard"},
		"pprofIndex":                {},
		"pprofCPU":                  {query: "?seconds=1"},
		"pprofTrace":                {query: "?seconds=1"},
		"pprofHeap":                 {},
		"pprofAllocs":               {},
		"pprofGoroutine":            {},
		"pprofBlock":                {},
		"pprofMutex":                {},
		"pprofThreadCreate":         {},
		"pprofCmdline":              {},
		"pprofSymbol":               {},
		"openapiYAML":               {},
		"openapiJSON":               {},
		"docs":                      {},
		"oipServerMetadata":         {},
		"oipServerLive":             {},
		"oipServerReady":            {},
		"oipModelMetadata":          {},
		"oipModelVersionMetadata":   {},
		"oipModelReady":             {},
		"oipModelVersionReady":      {},
		"oipInfer":                  {body: infer},
		"oipInferVersion":           {body: infer},
		"oipModelConfig":            {},
		"oipModelVersionConfig":     {},
		"oipStatistics":             {},
		"oipModelStatistics":        {},
		"oipModelVersionStatistics": {},
		"oipRepositoryIndex":        {},
		"oipRepositoryLoad":         {path: "/v2/repository/models/spare/load"},
		"oipRepositoryUnload":       {path: "/v2/repository/models/spare/unload"},
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

	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer("{job_id}", sub.JobID, "{name}", "echo", "{version}", "v1",
		"{model_name}", "echo", "{model_version}", "v1")
	type operation struct {
		id, method, path string
		public           bool
		scope            string
	}
	var ops []operation
	seen := map[string]bool{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			scope, _ := op.Extensions["x-required-scope"].(string)
			if v, ok := op.Extensions["x-required-scope"]; ok && scope == "" {
				t.Errorf("%s: x-required-scope %v is not a scope name", op.OperationID, v)
			}
			ops = append(ops, operation{op.OperationID, method, fill.Replace(path), op.Security != nil && len(*op.Security) == 0, scope})
			seen[op.OperationID] = true
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	for id := range calls {
		if !seen[id] {
			t.Errorf("the table calls %s, which openapi.yaml does not have", id)
		}
	}

	for _, op := range ops {
		call, ok := calls[op.id]
		if !ok {
			t.Errorf("operation %s (%s %s) has no entry in TestAuthMatrix's table: say how to call it", op.id, op.method, op.path)
			continue
		}
		if call.skip != "" {
			t.Logf("%s not called: %s", op.id, call.skip)
			continue
		}
		for _, k := range keys {
			want := cmp.Or(call.ok, http.StatusOK)
			switch {
			case op.public:
			case k.scopes == nil:
				want = http.StatusUnauthorized
			case op.scope != "" && !slices.Contains(k.scopes, op.scope):
				want = http.StatusForbidden
			}
			t.Run(fmt.Sprintf("%s %s/%s", op.method, op.path, k.class), func(t *testing.T) {
				path := cmp.Or(call.path, op.path)
				if want == http.StatusOK {
					skipTimedProfile(t, path+call.query)
				}
				resp := h.c.Do(h.c.NewRequest(op.method, path+call.query, k.key, call.body))
				if resp.Status != want {
					t.Fatalf("status %d, want %d: %.300s", resp.Status, want, resp.Body)
				}
				wantCode := map[int]string{http.StatusUnauthorized: "unauthorized", http.StatusForbidden: "forbidden"}[want]
				if wantCode == "" {
					return
				}
				// The Open Inference Protocol's operations answer in its own error
				// shape, which carries the same code.
				var got struct {
					Code string `json:"code"`
				}
				if strings.HasPrefix(op.path, "/v2") {
					resp.JSON(t, &got)
				} else {
					got.Code = resp.Problem(t).Code
				}
				if got.Code != wantCode {
					t.Errorf("code %q, want %s", got.Code, wantCode)
				}
			})
		}
	}
}
