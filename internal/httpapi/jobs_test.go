package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

type jobRecord struct {
	JobID        string          `json:"job_id"`
	Status       string          `json:"status"`
	Model        string          `json:"model"`
	Version      string          `json:"version"`
	CreatedAt    string          `json:"created_at"`
	FinishedAt   string          `json:"finished_at"`
	Result       json.RawMessage `json:"result"`
	ErrorMessage *string         `json:"error_message"`
	ErrorCode    *string         `json:"error_code"`
}

func submit(t *testing.T, c *apitest.Client, path string, body any) string {
	t.Helper()
	resp := c.Post(path, keyPredict, body)
	if resp.Status != http.StatusOK {
		t.Fatalf("submit: status %d: %s", resp.Status, resp.Body)
	}
	var out struct {
		JobID string `json:"job_id"`
	}
	resp.JSON(t, &out)
	return out.JobID
}

func poll(t *testing.T, c *apitest.Client, path string) jobRecord {
	t.Helper()
	resp := c.Get(path, keyRead) // any valid key may poll
	if resp.Status != http.StatusOK {
		t.Fatalf("poll %s: status %d: %s", path, resp.Status, resp.Body)
	}
	var rec jobRecord
	resp.JSON(t, &rec)
	return rec
}

// waitFinal polls until the job is final, checking every status on the way is allowed
// and never goes backwards.
func waitFinal(t *testing.T, c *apitest.Client, id string) jobRecord {
	t.Helper()
	rank := map[string]int{"created": 0, "pending": 1, "running": 2, "succeeded": 3, "failed": 3, "cancelled": 3}
	last := -1
	var rec jobRecord
	testkit.Eventually(t, 10*time.Second, func() bool {
		rec = poll(t, c, "/predict/async/"+id)
		r, ok := rank[rec.Status]
		if !ok || r < last {
			t.Fatalf("status %q after rank %d", rec.Status, last)
		}
		last = r
		return r == 3
	}, "job %s finished", id)
	return rec
}

func TestAsyncLifecycle(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, func(s *setup) {
		s.sources = append(s.sources, testModel("gate", blocking(release)), testModel("broken", failing))
	})
	t.Run("single", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"echo","version":"v1","data":{"n":12345678901234567890}}`)
		rec := waitFinal(t, h.c, id)
		if rec.Status != "succeeded" || !testkit.SameJSON(rec.Result, []byte(`{"n":12345678901234567890}`)) {
			t.Fatalf("record %+v", rec)
		}
		if rec.ErrorMessage != nil || rec.ErrorCode != nil || rec.Model != "echo" || rec.Version != "v1" {
			t.Errorf("record %+v", rec)
		}
		for _, ts := range []string{rec.CreatedAt, rec.FinishedAt} {
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
				t.Errorf("timestamp %q: %v", ts, err)
			}
		}
		if other := poll(t, h.c, "/jobs/"+id); !testkit.SameJSON(mustJSON(t, other), mustJSON(t, rec)) {
			t.Errorf("GET /jobs gives %+v, poll gives %+v", other, rec)
		}
	})
	t.Run("batch keeps order", func(t *testing.T) {
		items := make([]string, 300)
		for i := range items {
			items[i] = fmt.Sprint(i)
		}
		id := submit(t, h.c, "/predict/async/batch", `{"model":"echo","items":[`+strings.Join(items, ",")+`]}`)
		rec := waitFinal(t, h.c, id)
		if rec.Status != "succeeded" || rec.Version != "v2" {
			t.Fatalf("record %+v", rec)
		}
		var got []int
		if err := json.Unmarshal(rec.Result, &got); err != nil || len(got) != len(items) {
			t.Fatalf("result %s: %v", rec.Result, err)
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("result[%d] = %d", i, v)
			}
		}
	})
	t.Run("pending and running before succeeded", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":"x"}`)
		rec := poll(t, h.c, "/predict/async/"+id)
		if rec.Status != "pending" && rec.Status != "running" {
			t.Fatalf("status %q before the model could finish", rec.Status)
		}
		if string(rec.Result) != "null" || rec.FinishedAt != "" {
			t.Errorf("unfinished record %+v", rec)
		}
		release <- struct{}{}
		if rec := waitFinal(t, h.c, id); rec.Status != "succeeded" || string(rec.Result) != `"x"` {
			t.Fatalf("record %+v", rec)
		}
	})
	t.Run("failing pipeline", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"broken","data":1}`)
		rec := waitFinal(t, h.c, id)
		if rec.Status != "failed" || rec.ErrorMessage == nil || !strings.Contains(*rec.ErrorMessage, "boom") {
			t.Fatalf("record %+v", rec)
		}
		if rec.ErrorCode == nil || *rec.ErrorCode != "execution_error" {
			t.Errorf("error_code %v, want execution_error", rec.ErrorCode)
		}
		if string(rec.Result) != "null" {
			t.Errorf("failed job with result %s", rec.Result)
		}
	})
	t.Run("unknown job", func(t *testing.T) {
		for _, path := range []string{"/predict/async/", "/jobs/"} {
			resp := h.c.Get(path+"0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", keyPredict)
			if resp.Status != http.StatusNotFound || resp.Problem(t).Code != "job_not_found" {
				t.Errorf("%s: status %d: %s", path, resp.Status, resp.Body)
			}
		}
	})
}

func TestQueueFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(s *setup) {
			s.inMemory = true
			s.workers, s.queue = 1, 2
			s.sources = append(s.sources, testModel("gate", blocking(release)))
		})
		defer close(release)
		// One job runs and blocks the only worker; two more fill the queue.
		first := submit(t, h.c, "/predict/async", `{"model":"gate","data":1}`)
		synctest.Wait()
		if n := h.runner.Running(); n != 1 {
			t.Fatalf("%d jobs running once everything blocked, want 1", n)
		}
		submit(t, h.c, "/predict/async", `{"model":"gate","data":2}`)
		submit(t, h.c, "/predict/async/batch", `{"model":"gate","items":[3]}`)
		resp := h.c.Post("/predict/async", keyPredict, `{"model":"gate","data":4}`)
		if resp.Status != http.StatusServiceUnavailable {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
		if p := resp.Problem(t); p.Code != "queue_full" || resp.Header.Get("Retry-After") == "" {
			t.Errorf("problem %+v, Retry-After %q", p, resp.Header.Get("Retry-After"))
		}
		if rec := poll(t, h.c, "/jobs/"+first); rec.Status != "running" {
			t.Errorf("first job %q", rec.Status)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCancel runs in a synctest bubble, so "never runs" is checked once the worker
// has surely taken the cancelled job, not after a guessed pause; its steps share the
// jobs, so they are steps of one test rather than subtests (t.Run is not allowed in a
// bubble).
func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		h := newHarness(t, func(s *setup) {
			s.inMemory = true
			s.workers = 1
			s.sources = append(s.sources, testModel("gate", blocking(release)))
		})
		cancel := func(id string) *apitest.Response {
			return h.c.Do(h.c.NewRequest(http.MethodDelete, "/predict/async/"+id, keyPredict, nil))
		}
		running := submit(t, h.c, "/predict/async", `{"model":"gate","data":1}`)
		synctest.Wait()
		if n := h.runner.Running(); n != 1 {
			t.Fatalf("%d jobs running once everything blocked, want 1", n)
		}
		pending := submit(t, h.c, "/predict/async", `{"model":"gate","data":2}`)

		// A pending job.
		resp := cancel(pending)
		var rec jobRecord
		resp.JSON(t, &rec)
		if resp.Status != http.StatusOK || rec.Status != "cancelled" || rec.FinishedAt == "" {
			t.Fatalf("pending: status %d, record %+v", resp.Status, rec)
		}

		// A running job: the worker is freed, the abandoned run's context ended.
		if resp := cancel(running); resp.Status != http.StatusOK {
			t.Fatalf("running: status %d: %s", resp.Status, resp.Body)
		}
		synctest.Wait()
		if h.runner.Running() != 0 {
			t.Fatal("the cancelled job still runs")
		}
		if rec := poll(t, h.c, "/jobs/"+running); rec.Status != "cancelled" || string(rec.Result) != "null" {
			t.Errorf("running: record %+v", rec)
		}

		// The pending one never runs: by now the free worker has taken it off the
		// queue, and would be blocked in the model had it run it.
		if d, n := h.runner.Depth(), h.runner.Running(); d != 0 || n != 0 {
			t.Fatalf("%d jobs queued and %d running once everything blocked, want none", d, n)
		}
		if rec := poll(t, h.c, "/jobs/"+pending); rec.Status != "cancelled" {
			t.Errorf("the pending one: record %+v", rec)
		}

		// A finished job.
		done := submit(t, h.c, "/predict/async", `{"model":"echo","data":3}`)
		waitFinal(t, h.c, done)
		resp = cancel(done)
		if resp.Status != http.StatusConflict || resp.Problem(t).Code != "job_finished" {
			t.Fatalf("finished: status %d: %s", resp.Status, resp.Body)
		}
		if rec := poll(t, h.c, "/jobs/"+done); rec.Status != "succeeded" {
			t.Errorf("a refused cancel changed the record: %+v", rec)
		}

		// Cancelled twice.
		if resp := cancel(pending); resp.Status != http.StatusConflict {
			t.Errorf("cancelled twice: status %d: %s", resp.Status, resp.Body)
		}

		// An unknown job.
		if resp := cancel("0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b"); resp.Status != http.StatusNotFound {
			t.Errorf("unknown: status %d: %s", resp.Status, resp.Body)
		}
	})
}

// TestCancelOwnJobsOnly (see docs/design.md#a-key-cancels-its-own-jobs-only): a job belongs to the key that submitted
// it. Another key's DELETE is 404 job_not_found, worded as for an id that does not
// exist, whatever the job's status, and changes nothing; a key with the admin scope
// cancels any job; any valid key still reads any job.
func TestCancelOwnJobsOnly(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, func(s *setup) {
		s.workers = 1
		s.sources = append(s.sources, testModel("gate", blocking(release)))
	})
	submitAs := func(key, body string) string {
		t.Helper()
		resp := h.c.Post("/predict/async", key, body)
		var out struct {
			JobID string `json:"job_id"`
		}
		if resp.Status != http.StatusOK {
			t.Fatalf("submit: %d %s", resp.Status, resp.Body)
		}
		resp.JSON(t, &out)
		return out.JobID
	}
	finished := submitAs(keyPredict, `{"model":"echo","data":0}`)
	waitFinal(t, h.c, finished) // before the one worker blocks
	jobs := map[string]string{
		"finished": finished,
		"running":  submitAs(keyPredict, `{"model":"gate","data":1}`),
		"pending":  submitAs(keyPredict, `{"model":"gate","data":2}`),
		"pending2": submitAs(keyPredict, `{"model":"gate","data":3}`),
		"other's":  submitAs(keyOther, `{"model":"gate","data":4}`),
		"unknown":  "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b",
	}
	testkit.Eventually(t, 10*time.Second, func() bool { return poll(t, h.c, "/jobs/"+jobs["running"]).Status == "running" }, "the gate's first job running")
	unknown := h.c.Do(h.c.NewRequest(http.MethodDelete, "/predict/async/"+jobs["unknown"], keyOther, nil)).Problem(t)

	tests := []struct {
		name   string
		key    string
		job    string
		status int
		// after is the job's status once the request is answered.
		after string
	}{
		{"another key, a running job", keyOther, "running", http.StatusNotFound, "running"},
		{"another key, a pending job", keyOther, "pending", http.StatusNotFound, "pending"},
		{"another key, a finished job", keyOther, "finished", http.StatusNotFound, "succeeded"},
		{"a key without the predict scope", keyRead, "pending", http.StatusForbidden, "pending"},
		{"the admin, another key's job", keyAdmin, "pending", http.StatusOK, "cancelled"},
		{"its own key, a running job", keyPredict, "running", http.StatusOK, "cancelled"},
		{"its own key, a pending job", keyPredict, "pending2", http.StatusOK, "cancelled"},
		{"the other key, its own job", keyOther, "other's", http.StatusOK, "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := jobs[tt.job]
			resp := h.c.Do(h.c.NewRequest(http.MethodDelete, "/predict/async/"+id, tt.key, nil))
			if resp.Status != tt.status {
				t.Fatalf("%d %s, want %d", resp.Status, resp.Body, tt.status)
			}
			if tt.status == http.StatusNotFound {
				p := resp.Problem(t)
				if want := strings.ReplaceAll(unknown.Detail, jobs["unknown"], id); p.Code != "job_not_found" || p.Detail != want {
					t.Errorf("another key's job: %s %q; an unknown one: %q", p.Code, p.Detail, want)
				}
			}
			// Any valid key reads any job.
			if rec := poll(t, h.c, "/jobs/"+id); rec.Status != tt.after {
				t.Errorf("the job is %s, want %s", rec.Status, tt.after)
			}
		})
	}
}

// TestJobBytesBudget (see docs/design.md#job-records-are-bounded-per-key): once a key's job records take
// MAX_JOB_BYTES_PER_KEY, its next submission, single or batch, is 429
// job_bytes_limited with a Retry-After that says when its first record expires (an
// hour here, the TTL); another key is not refused, and a job whose record alone passes
// the budget is 413 payload_too_large.
func TestJobBytesBudget(t *testing.T) {
	const ttl = time.Hour
	h := newHarness(t, func(s *setup) {
		s.store.TTL = ttl
		s.store.MaxBytesPerOwner = 40 << 10
	})
	data := `"` + strings.Repeat("x", 10_000) + `"`
	var ids []string
	for {
		resp := h.c.Post("/predict/async", keyPredict, `{"model":"echo","data":`+data+`}`)
		if resp.Status != http.StatusOK {
			break
		}
		var out struct {
			JobID string `json:"job_id"`
		}
		resp.JSON(t, &out)
		ids = append(ids, out.JobID)
		if len(ids) > 4 {
			t.Fatalf("%d jobs of 10 KB accepted under a budget of 40 KiB", len(ids))
		}
	}
	if len(ids) < 2 {
		t.Fatalf("%d jobs of 10 KB accepted under a budget of 40 KiB, want 2 or 3", len(ids))
	}
	for _, id := range ids {
		waitFinal(t, h.c, id)
	}
	tests := []struct {
		name, key, path, body string
		status                int
		code                  string
	}{
		{"single", keyPredict, "/predict/async", `{"model":"echo","data":` + data + `}`, http.StatusTooManyRequests, "job_bytes_limited"},
		{"batch", keyPredict, "/predict/async/batch", `{"model":"echo","items":[` + data + `]}`, http.StatusTooManyRequests, "job_bytes_limited"},
		{"another key", keyOther, "/predict/async", `{"model":"echo","data":` + data + `}`, http.StatusOK, ""},
		{"too large alone", keyOther, "/predict/async", `{"model":"echo","data":"` + strings.Repeat("y", 50_000) + `"}`, http.StatusRequestEntityTooLarge, "payload_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.c.Post(tt.path, tt.key, tt.body)
			if resp.Status != tt.status {
				t.Fatalf("%d %.300s, want %d", resp.Status, resp.Body, tt.status)
			}
			if tt.status == http.StatusOK {
				return
			}
			p := resp.Problem(t)
			if p.Code != tt.code || !strings.Contains(p.Detail, "MAX_JOB_BYTES_PER_KEY") {
				t.Errorf("%s: %s, want %s naming MAX_JOB_BYTES_PER_KEY", p.Code, p.Detail, tt.code)
			}
			if tt.status != http.StatusTooManyRequests {
				return
			}
			ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
			if err != nil || ra < int(ttl.Seconds())-60 || ra > int(ttl.Seconds()) {
				t.Errorf("Retry-After %q, want about %d: when the first record expires", resp.Header.Get("Retry-After"), int(ttl.Seconds()))
			}
		})
	}
}
