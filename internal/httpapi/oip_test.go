package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// TestOIPWhileLoading: before a version has loaded, the Open Inference Protocol
// (https://github.com/kserve/open-inference-protocol/blob/main/specification/protocol/inference_rest.md)
// says it is not ready: server and model readiness answer 503 with ready false, and an
// infer call 503 model_loading in the protocol's error shape with Retry-After; once
// loaded, all three answer 200.
func TestOIPWhileLoading(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.noLoad = true })
	infer := `{"inputs":[{"name":"x","shape":[1],"datatype":"INT32","data":[7]}]}`
	type answer struct {
		Ready *bool  `json:"ready"`
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	check := func(t *testing.T, resp int, body []byte, status int, ready bool, code string) {
		t.Helper()
		var a answer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		switch {
		case resp != status:
			t.Errorf("status %d, want %d: %s", resp, status, body)
		case code != "" && (a.Code != code || a.Error == ""):
			t.Errorf("%s, want code %s with an error", body, code)
		case code == "" && (a.Ready == nil || *a.Ready != ready):
			t.Errorf("%s, want ready %v", body, ready)
		}
	}
	tests := []struct {
		name   string
		status int
	}{{"loading", http.StatusServiceUnavailable}, {"loaded", http.StatusOK}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.status == http.StatusOK {
				h.reg.Load(context.Background())
			}
			ready := tt.status == http.StatusOK
			r := h.c.Get("/v2/health/ready", "")
			check(t, r.Status, r.Body, tt.status, ready, "")
			r = h.c.Get("/v2/models/echo/versions/v1/ready", keyRead)
			check(t, r.Status, r.Body, tt.status, ready, "")
			r = h.c.Post("/v2/models/echo/versions/v1/infer", keyPredict, infer)
			if ready {
				check(t, r.Status, []byte(`{"ready":true}`), http.StatusOK, true, "")
			} else {
				check(t, r.Status, r.Body, tt.status, false, "model_loading")
				if r.Header.Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
			}
		})
	}
}
