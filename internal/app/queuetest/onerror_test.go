package queuetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestBatchJobOnError: queue mode, the example models (iris through ONNX Runtime) on a
// worker: a 1,000-item batch job with one item iris refuses fails by default, naming the
// item; with on_error continue it succeeds, every good item's result the one /predict
// gives it, null in the refused item's place, and the record's item_errors naming it.
// Every answer is validated against the contract.
func TestBatchJobOnError(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	onnxtest.Runtime(t) // iris needs it: fail under CI, skip elsewhere
	c.models = proctest.ExampleModels(t)
	var env []string
	if lib := os.Getenv("ONNXRUNTIME_LIB"); lib != "" {
		env = append(env, "ONNXRUNTIME_LIB="+lib)
	}
	s := c.startServer(env...)
	c.startWorker(env...)

	const n, bad = 1000, 777
	flowers := []string{`[5.1,3.5,1.4,0.2]`, `{"sepal_length":6.7,"sepal_width":3.0,"petal_length":5.2,"petal_width":2.3}`}
	var want [2]json.RawMessage
	for k, f := range flowers {
		resp := s.api.Post("/predict", devKey, `{"model":"iris","version":"v1","data":`+f+`}`)
		var p struct {
			Result json.RawMessage `json:"result"`
		}
		resp.JSON(t, &p)
		want[k] = p.Result
	}
	its := make([]string, n)
	for i := range its {
		its[i] = flowers[i%2]
	}
	its[bad] = `[5.1,3.5,1.4]`
	items := "[" + strings.Join(its, ",") + "]"
	detail := "items[" + strconv.Itoa(bad) + "]: expected 4 numbers, got 3"

	type itemError struct {
		Index  int    `json:"index"`
		Status int    `json:"status"`
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	type record struct {
		Status       string            `json:"status"`
		Result       []json.RawMessage `json:"result"`
		ErrorMessage *string           `json:"error_message"`
		ItemErrors   []itemError       `json:"item_errors"`
	}
	run := func(t *testing.T, body string) record {
		t.Helper()
		resp := s.api.Post("/predict/async/batch", devKey, body)
		var sub struct {
			JobID string `json:"job_id"`
		}
		resp.JSON(t, &sub)
		if resp.Status != http.StatusOK || sub.JobID == "" {
			t.Fatalf("submit: %d %s", resp.Status, resp.Body)
		}
		var rec record
		testkit.Eventually(t, 2*time.Minute, func() bool {
			rec = record{}
			s.api.Get("/jobs/"+sub.JobID+"?wait=10", devKey).JSON(t, &rec)
			return rec.Status == "succeeded" || rec.Status == "failed" || rec.Status == "cancelled"
		}, "job %s final: it is still %s", sub.JobID, func() string { return rec.Status })
		return rec
	}

	t.Run("fail", func(t *testing.T) {
		rec := run(t, `{"model":"iris","version":"v1","items":`+items+`}`)
		if rec.Status != "failed" || rec.ErrorMessage == nil || *rec.ErrorMessage != detail || rec.ItemErrors != nil {
			t.Fatalf("record %+v, want failed with %q", rec, detail)
		}
	})
	t.Run("continue", func(t *testing.T) {
		rec := run(t, `{"model":"iris","version":"v1","on_error":"continue","items":`+items+`}`)
		if rec.Status != "succeeded" || rec.ErrorMessage != nil || len(rec.Result) != n {
			t.Fatalf("status %s, error %v, %d results; want succeeded with %d", rec.Status, rec.ErrorMessage, len(rec.Result), n)
		}
		for i, r := range rec.Result {
			w := want[i%2]
			if i == bad {
				w = json.RawMessage("null")
			}
			if !bytes.Equal(r, w) {
				t.Fatalf("result[%d] = %s, want %s", i, r, w)
			}
		}
		if wantErrs := []itemError{{bad, 400, "invalid_input", detail}}; !slices.Equal(rec.ItemErrors, wantErrs) {
			t.Fatalf("item_errors %+v, want %+v", rec.ItemErrors, wantErrs)
		}
	})
}
