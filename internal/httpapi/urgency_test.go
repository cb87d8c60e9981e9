package httpapi_test

import (
	"net/http"
	"testing"
	"time"
)

// TestSubmitUrgency: a submission's priority and deadline are kept in its record
// (normal when none is sent); a job whose deadline has passed already fails unrun; a
// malformed deadline and an unknown priority are 400.
func TestSubmitUrgency(t *testing.T) {
	h := newHarness(t)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	tests := []struct {
		name, path, body string
		status           int
		priority         string
		deadline         bool
	}{
		{"none", "/predict/async", `{"model":"echo","data":1}`, http.StatusOK, "normal", false},
		{"high", "/predict/async", `{"model":"echo","data":1,"priority":"high"}`, http.StatusOK, "high", false},
		{"low batch with a deadline", "/predict/async/batch", `{"model":"echo","items":[1],"priority":"low","deadline":"` + future + `"}`, http.StatusOK, "low", true},
		{"a deadline past", "/predict/async", `{"model":"echo","data":1,"deadline":"` + past + `"}`, http.StatusOK, "normal", true},
		{"a malformed deadline", "/predict/async", `{"model":"echo","data":1,"deadline":"tomorrow"}`, http.StatusBadRequest, "", false},
		{"an unknown priority", "/predict/async", `{"model":"echo","data":1,"priority":"urgent"}`, http.StatusBadRequest, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.c.Post(tt.path, keyPredict, tt.body)
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			if tt.status != http.StatusOK {
				return
			}
			var sub struct {
				JobID string `json:"job_id"`
			}
			resp.JSON(t, &sub)
			var rec struct {
				Priority string  `json:"priority"`
				Deadline *string `json:"deadline"`
			}
			h.c.Get("/jobs/"+sub.JobID, keyRead).JSON(t, &rec)
			if rec.Priority != tt.priority || (rec.Deadline != nil) != tt.deadline {
				t.Errorf("record with priority %q and deadline %v", rec.Priority, rec.Deadline)
			}
			final := waitFinal(t, h.c, sub.JobID)
			if expired := tt.deadline && *rec.Deadline == past; expired != (final.Status == "failed") {
				t.Errorf("the job ended %s (%v)", final.Status, final.ErrorMessage)
			}
		})
	}
}

// TestRequestTimeout: a synchronous prediction still running at its Request-Timeout
// is answered 503 request_cancelled; a malformed header is 400.
func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, testModel("gate", blocking(release))) })
	tests := []struct {
		name, path, body, timeout string
		status                    int
		code                      string
	}{
		{"passed", "/predict", `{"model":"gate","data":1}`, "0.05", http.StatusServiceUnavailable, "request_cancelled"},
		{"passed, a batch", "/predict/batch", `{"model":"gate","items":[1,2]}`, "0.05", http.StatusServiceUnavailable, "request_cancelled"},
		{"not a number", "/predict", `{"model":"gate","data":1}`, "soon", http.StatusBadRequest, "invalid_request"},
		{"zero", "/predict", `{"model":"gate","data":1}`, "0", http.StatusBadRequest, "invalid_request"},
		{"over an hour", "/predict", `{"model":"gate","data":1}`, "3601", http.StatusBadRequest, "invalid_request"},
		{"malformed, to /v2 infer", "/v2/models/echo/infer", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT64","data":[1]}]}`, "1e3", http.StatusBadRequest, "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodPost, tt.path, keyPredict, tt.body)
			req.Header.Set("Request-Timeout", tt.timeout)
			resp := h.c.Do(req)
			var p struct {
				Code string `json:"code"`
			}
			resp.JSON(t, &p)
			if resp.Status != tt.status || p.Code != tt.code {
				t.Fatalf("status %d code %q, want %d %q: %s", resp.Status, p.Code, tt.status, tt.code, resp.Body)
			}
		})
	}
}
