package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestIdempotentSubmit covers the Idempotency-Key of both submit operations in
// process: a repeat answers the first job, another body or operation is 422, another
// API key has keys of its own, and a malformed key is 400.
func TestIdempotentSubmit(t *testing.T) {
	h := newHarness(t)
	send := func(path, apiKey, idemKey, body string) (int, string, string) {
		t.Helper()
		req := h.c.NewRequest(http.MethodPost, path, apiKey, body)
		req.Header.Set("Idempotency-Key", idemKey)
		resp := h.c.Do(req)
		var out struct {
			JobID string `json:"job_id"`
			Code  string `json:"code"`
		}
		resp.JSON(t, &out)
		return resp.Status, out.JobID, out.Code
	}
	status, first, _ := send("/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1, 2]}}`)
	if status != http.StatusOK || first == "" {
		t.Fatalf("first submission: %d %q", status, first)
	}
	tests := []struct {
		name, path, apiKey, idemKey, body string
		wantStatus                        int
		wantCode                          string
		wantFirst                         bool
	}{
		{"repeat", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1, 2]}}`, http.StatusOK, "", true},
		{"repeat with other spacing and member order", "/predict/async", keyPredict, "order-1", `{"data":{"a":1,"b":[1,2]},"version":"v1","model":"echo"}`, http.StatusOK, "", true},
		{"repeat with the key as a structured-field string", "/predict/async", keyPredict, `"order-1"`, `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]}}`, http.StatusOK, "", true},
		{"another body", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":2,"b":[1,2]}}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"repeat naming the default priority", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]},"priority":"normal"}`, http.StatusOK, "", true},
		{"another priority", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]},"priority":"high"}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"a deadline", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]},"deadline":"2099-01-01T00:00:00Z"}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"another version", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v2","data":{"a":1,"b":[1,2]}}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"the other operation", "/predict/async/batch", keyPredict, "order-1", `{"model":"echo","version":"v1","items":[{"a":1,"b":[1,2]}]}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"another API key", "/predict/async", keyOther, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]}}`, http.StatusOK, "", false},
		{"a key of its own", "/predict/async", keyPredict, "order-2", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]}}`, http.StatusOK, "", false},
		{"not ASCII", "/predict/async", keyPredict, "ordér", `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
		{"too long", "/predict/async", keyPredict, strings.Repeat("k", 258), `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
		{"an unclosed string", "/predict/async", keyPredict, `"order-1`, `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
		{"the longest", "/predict/async", keyPredict, `"` + strings.Repeat("k", 255) + `"`, `{"model":"echo","data":1}`, http.StatusOK, "", false},
		{"an empty string", "/predict/async", keyPredict, `""`, `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, id, code := send(tt.path, tt.apiKey, tt.idemKey, tt.body)
			if status != tt.wantStatus || code != tt.wantCode {
				t.Fatalf("status %d code %q, want %d %q", status, code, tt.wantStatus, tt.wantCode)
			}
			if status == http.StatusOK && (id == first) != tt.wantFirst {
				t.Fatalf("job %s; first was %s, want the first: %v", id, first, tt.wantFirst)
			}
		})
	}
	t.Run("batch", func(t *testing.T) {
		body := `{"model":"echo","items":[1,"two",null]}`
		_, a, _ := send("/predict/async/batch", keyPredict, "batch-1", body)
		status, b, _ := send("/predict/async/batch", keyPredict, "batch-1", body)
		if status != http.StatusOK || a != b || a == "" {
			t.Fatalf("repeat: %d, jobs %q and %q", status, a, b)
		}
		if rec := waitFinal(t, h.c, a); rec.Status != "succeeded" {
			t.Fatalf("the job ended %s", rec.Status)
		}
	})
}
