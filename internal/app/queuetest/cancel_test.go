package queuetest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestCancelInQueueMode cancels jobs through the API in each state a cancel meets:
// pending (dropped from the queue; no worker ever runs it), running (abandoned; the
// worker's late result is discarded), and finished (409 job_finished, record
// untouched). The worker runs one job at a time, so a job submitted after another
// succeeds only once the worker has dealt with the first: that orders the checks
// without sleeping.
func TestCancelInQueueMode(t *testing.T) {
	t.Parallel()
	const slowDelay = 3 * time.Second
	c := newCluster(t)
	c.addSlowModel("slow", "v1", slowDelay)
	s := c.startServer()

	cancel := func(t *testing.T, id string) (int, jobRecord, string) {
		t.Helper()
		resp := s.api.Do(s.api.NewRequest(http.MethodDelete, "/predict/async/"+id, devKey, nil))
		var rec jobRecord
		code := ""
		if resp.Status == http.StatusOK {
			resp.JSON(t, &rec)
		} else {
			code = resp.Problem(t).Code
		}
		return resp.Status, rec, code
	}

	// No worker runs yet, so this job is certainly still queued.
	pending := s.submit(t, single("echo", "v1", `{"cancel":"me"}`))
	t.Run("pending", func(t *testing.T) {
		status, rec, code := cancel(t, pending)
		if status != http.StatusOK || rec.Status != "cancelled" || rec.FinishedAt == nil || rec.StartedAt != nil {
			t.Fatalf("cancel: %d %s %+v", status, code, rec)
		}
	})

	c.startWorker("WORKER_CONCURRENCY=1")
	finishedSpec := single("echo", "v1", `{"n":12345678901234567890}`)
	finished := s.submit(t, finishedSpec)
	done := s.waitStatus(t, finished, "succeeded", 10*time.Second)
	t.Run("pending never runs", func(t *testing.T) {
		// The worker has run a job queued behind the cancelled one.
		if rec := s.poll(t, pending); rec.Status != "cancelled" || rec.StartedAt != nil || string(rec.Result) != "null" {
			t.Errorf("the cancelled job ran after all: %+v", rec)
		}
	})

	t.Run("finished", func(t *testing.T) {
		status, _, code := cancel(t, finished)
		if status != http.StatusConflict || code != "job_finished" {
			t.Errorf("cancel of a finished job: %d %q, want 409 job_finished", status, code)
		}
		if rec := s.poll(t, finished); rec.Status != "succeeded" || !testkit.SameJSON(rec.Result, done.Result) || !rec.FinishedAt.Equal(*done.FinishedAt) {
			t.Errorf("a refused cancel changed the record: %+v, was %+v", rec, done)
		}
	})

	t.Run("running", func(t *testing.T) {
		s.requireModel(t, "slow", "v1")
		running := s.submit(t, single("slow", "v1", `{"long":true}`))
		s.waitStatus(t, running, "running", 10*time.Second)
		status, rec, code := cancel(t, running)
		if status != http.StatusOK || rec.Status != "cancelled" || rec.FinishedAt == nil {
			t.Fatalf("cancel: %d %s %+v", status, code, rec)
		}
		cancelledAt := *rec.FinishedAt

		// The worker runs one job at a time, so once this one has succeeded it has let go
		// of the cancelled one. asynq sends an abandoned task to retry, and a pipeline
		// that ignored the cancellation would still be running a redelivery of it: so
		// wait until asynq is done with the task (its hash is deleted once a delivery
		// returns), then the record must be as the cancel left it.
		after := s.submit(t, single("echo", "v1", `"after"`))
		s.waitStatus(t, after, "succeeded", 2*slowDelay+10*time.Second)
		rc := c.redis.Client()
		testkit.Eventually(t, 2*slowDelay+10*time.Second, func() bool {
			n, err := rc.Exists(context.Background(), "asynq:{inferd}:t:"+running).Result()
			return err == nil && n == 0
		}, "asynq done with the cancelled job's task")
		if rec := s.poll(t, running); rec.Status != "cancelled" || string(rec.Result) != "null" || !rec.FinishedAt.Equal(cancelledAt) {
			t.Fatalf("the cancelled job changed: %+v", rec)
		}
	})
}

// TestCancelOwnJobsOnlyInQueueMode (see docs/design.md#a-key-cancels-its-own-jobs-only): across two servers on one Redis,
// a job belongs to the key that submitted it. Another key's DELETE, through either
// server, is 404 job_not_found worded as for an unknown id, whether the job waits or
// has finished, and leaves it as it was; a key with the admin scope cancels it; its own
// key cancels it through the other server; any valid key still reads it.
func TestCancelOwnJobsOnlyInQueueMode(t *testing.T) {
	t.Parallel()
	const (
		owner = "owner-key"
		other = "other-key"
		admin = "root-key"
	)
	keys := "API_KEYS=" + devKey + ":predict+read_models," + owner + ":predict+read_models," + other + ":predict+read_models," + admin + ":predict+read_models+admin"
	c := newCluster(t)
	c.addSlowModel("slow", "v1", time.Minute)
	servers := []*server{c.startServer(keys), c.startServer(keys)}
	c.startWorker("WORKER_CONCURRENCY=1")
	submitAs := func(key string, spec jobSpec) string {
		t.Helper()
		resp := servers[0].api.Post(spec.path(), key, spec)
		var out struct {
			JobID string `json:"job_id"`
		}
		if resp.Status != http.StatusOK {
			t.Fatalf("submit: %d %s", resp.Status, resp.Body)
		}
		resp.JSON(t, &out)
		return out.JobID
	}
	cancel := func(s *server, key, id string) *apitest.Response {
		return s.api.Do(s.api.NewRequest(http.MethodDelete, "/predict/async/"+id, key, nil))
	}
	const unknownID = "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b"
	unknown := cancel(servers[1], other, unknownID).Problem(t)

	// One worker runs one job at a time: the first finishes, the second runs for a
	// minute, the third waits behind it.
	finished := submitAs(owner, single("echo", "v1", `1`))
	servers[0].waitStatus(t, finished, "succeeded", 30*time.Second)
	running := submitAs(owner, single("slow", "v1", `2`))
	servers[0].waitStatus(t, running, "running", 30*time.Second)
	pending := submitAs(owner, single("slow", "v1", `3`))
	pending2 := submitAs(owner, single("slow", "v1", `4`))

	tests := []struct {
		name   string
		server int
		key    string
		id     string
		status int
		after  string // the job's status once answered
	}{
		{"another key, a running job", 1, other, running, http.StatusNotFound, "running"},
		{"another key, a pending job", 0, other, pending, http.StatusNotFound, "pending"},
		{"another key, a finished job", 1, other, finished, http.StatusNotFound, "succeeded"},
		{"the admin, another key's job", 1, admin, pending, http.StatusOK, "cancelled"},
		{"its own key, through the other server", 1, owner, running, http.StatusOK, "cancelled"},
		{"its own key, a pending job", 0, owner, pending2, http.StatusOK, "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := servers[tt.server]
			resp := cancel(s, tt.key, tt.id)
			if resp.Status != tt.status {
				t.Fatalf("%d %s, want %d", resp.Status, resp.Body, tt.status)
			}
			if tt.status == http.StatusNotFound {
				p := resp.Problem(t)
				if want := strings.ReplaceAll(unknown.Detail, unknownID, tt.id); p.Code != "job_not_found" || p.Detail != want {
					t.Errorf("another key's job: %s %q; an unknown one: %q", p.Code, p.Detail, want)
				}
			}
			// Any valid key reads any job.
			read := s.api.Do(s.api.NewRequest(http.MethodGet, "/jobs/"+tt.id, other, nil))
			var rec jobRecord
			if read.Status != http.StatusOK {
				t.Fatalf("another key reads the job: %d %s", read.Status, read.Body)
			}
			read.JSON(t, &rec)
			if rec.Status != tt.after {
				t.Errorf("the job is %s, want %s", rec.Status, tt.after)
			}
		})
	}
}
