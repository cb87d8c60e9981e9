package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSubmitUrgency: a submission's priority and deadline are kept in its record
// (normal when none is sent); a job whose deadline has passed already fails unrun,
// the earliest time RFC 3339 can write (Go's zero time) among them; a malformed
// deadline and an unknown priority are 400.
func TestSubmitUrgency(t *testing.T) {
	h := newHarness(t)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	const first = "0001-01-01T00:00:00Z"
	tests := []struct {
		name, path, body string
		status           int
		priority         string
		deadline         string // the record's, "" for none
		detail           string // part of a 400's detail
	}{
		{"none", "/predict/async", `{"model":"echo","data":1}`, http.StatusOK, "normal", "", ""},
		{"high", "/predict/async", `{"model":"echo","data":1,"priority":"high"}`, http.StatusOK, "high", "", ""},
		{"low batch with a deadline", "/predict/async/batch", `{"model":"echo","items":[1],"priority":"low","deadline":"` + future + `"}`, http.StatusOK, "low", future, ""},
		{"a deadline past", "/predict/async", `{"model":"echo","data":1,"deadline":"` + past + `"}`, http.StatusOK, "normal", past, ""},
		{"the first instant", "/predict/async", `{"model":"echo","data":1,"deadline":"` + first + `"}`, http.StatusOK, "normal", first, ""},
		{"the first instant, a batch", "/predict/async/batch", `{"model":"echo","items":[1],"deadline":"` + first + `"}`, http.StatusOK, "normal", first, ""},
		{"a malformed deadline", "/predict/async", `{"model":"echo","data":1,"deadline":"tomorrow"}`, http.StatusBadRequest, "", "", "deadline"},
		{"an unknown priority", "/predict/async", `{"model":"echo","data":1,"priority":"urgent"}`, http.StatusBadRequest, "", "", "priority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.c.Post(tt.path, keyPredict, tt.body)
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			if tt.status != http.StatusOK {
				if !strings.Contains(string(resp.Body), tt.detail) {
					t.Errorf("the problem does not name the %s: %s", tt.detail, resp.Body)
				}
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
			if rec.Priority != tt.priority || (rec.Deadline != nil) != (tt.deadline != "") || rec.Deadline != nil && !sameTime(*rec.Deadline, tt.deadline) {
				t.Errorf("record with priority %q and deadline %v", rec.Priority, rec.Deadline)
			}
			final := waitFinal(t, h.c, sub.JobID)
			if expired := tt.deadline == past || tt.deadline == first; expired != (final.Status == "failed") {
				t.Errorf("the job ended %s (%v)", final.Status, final.ErrorMessage)
			}
		})
	}
}

// TestRequestTimeout: a synchronous prediction still running at its Request-Timeout
// is answered 503 request_cancelled, one of a nanosecond too; a malformed header is
// 400, its detail saying what is wrong with it.
func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, testModel("gate", blocking(release))) })
	tests := []struct {
		name, path, body, timeout string
		status                    int
		code                      string
		detail                    string // part of the detail
	}{
		{"passed", "/predict", `{"model":"gate","data":1}`, "0.05", http.StatusServiceUnavailable, "request_cancelled", "(0.05 s) passed"},
		{"passed, a batch", "/predict/batch", `{"model":"gate","items":[1,2]}`, "0.05", http.StatusServiceUnavailable, "request_cancelled", "(0.05 s) passed"},
		{"a nanosecond", "/predict", `{"model":"gate","data":1}`, "0.000000001", http.StatusServiceUnavailable, "request_cancelled", "(0.000000001 s) passed"},
		{"not a number", "/predict", `{"model":"gate","data":1}`, "soon", http.StatusBadRequest, "invalid_request", `a decimal number of seconds`},
		{"an exponent", "/predict", `{"model":"gate","data":1}`, "1e-9", http.StatusBadRequest, "invalid_request", `no sign, exponent or unit); got "1e-9"`},
		{"a sign", "/predict", `{"model":"gate","data":1}`, "+1", http.StatusBadRequest, "invalid_request", `no sign, exponent or unit); got "+1"`},
		{"ten decimals", "/predict", `{"model":"gate","data":1}`, "0.0000000001", http.StatusBadRequest, "invalid_request", "at most 9 decimals"},
		{"zero", "/predict", `{"model":"gate","data":1}`, "0", http.StatusBadRequest, "invalid_request", "above 0"},
		{"zero with decimals", "/predict", `{"model":"gate","data":1}`, "0.000000000", http.StatusBadRequest, "invalid_request", "above 0"},
		{"five digits", "/predict", `{"model":"gate","data":1}`, "10000", http.StatusBadRequest, "invalid_request", "at most 3600"},
		{"over an hour", "/predict", `{"model":"gate","data":1}`, "3600.000000001", http.StatusBadRequest, "invalid_request", "at most 3600"},
		{"malformed, to /v2 infer", "/v2/models/echo/infer", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT64","data":[1]}]}`, "1e3", http.StatusBadRequest, "invalid_request", "Request-Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodPost, tt.path, keyPredict, tt.body)
			req.Header.Set("Request-Timeout", tt.timeout)
			resp := h.c.Do(req)
			var p struct {
				Code   string `json:"code"`
				Detail string `json:"detail"`
				Error  string `json:"error"` // the /v2 routes' shape
			}
			resp.JSON(t, &p)
			if resp.Status != tt.status || p.Code != tt.code && p.Error == "" {
				t.Fatalf("status %d code %q, want %d %q: %s", resp.Status, p.Code, tt.status, tt.code, resp.Body)
			}
			if !strings.Contains(p.Detail+p.Error, tt.detail) {
				t.Errorf("the answer does not say %q: %s", tt.detail, resp.Body)
			}
		})
	}
}

// sameTime reports whether two RFC 3339 times name one instant.
func sameTime(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	return errA == nil && errB == nil && ta.Equal(tb)
}
