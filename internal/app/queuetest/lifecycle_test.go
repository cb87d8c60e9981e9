package queuetest

import (
	"context"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/testkit"
)

// TestJobWaitsForAWorker: with no worker running, a submitted job stays pending (it is
// queued, not lost and not failed), and a worker started later runs it.
func TestJobWaitsForAWorker(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	s := c.startServer()
	spec := batch("echo", "v1", `{"a":12345678901234567890}`, `[1,{"b":null}]`)
	id := s.submit(t, spec)

	// The task waits in asynq's pending list, which only a worker's dequeue takes it
	// from: no time spent watching it would show more.
	rc := redis.NewClient(&redis.Options{Addr: c.redis.Addr()})
	defer rc.Close()
	ctx := context.Background()
	state, err := rc.HGet(ctx, "asynq:{inferd}:t:"+id, "state").Result()
	pending, lerr := rc.LRange(ctx, "asynq:{inferd}:pending", 0, -1).Result()
	if err != nil || lerr != nil || state != "pending" || !slices.Contains(pending, id) {
		t.Fatalf("task %s: state %q (%v), pending list %v (%v); want it pending", id, state, err, pending, lerr)
	}
	if rec := s.poll(t, id); rec.Status != "pending" || rec.StartedAt != nil {
		t.Fatalf("with no worker running, the job is %+v, want pending", rec)
	}

	w := c.startWorker()
	rec := s.waitStatus(t, id, "succeeded", 10*time.Second)
	if !testkit.SameJSON(rec.Result, spec.want()) {
		t.Errorf("result %s, want %s", rec.Result, spec.want())
	}

	// The job is counted where it ran: the worker exports its outcome, and the server,
	// which runs no job, exports no job series rather than zeros that would read as
	// jobs never finishing; the queue's series are the server's.
	if n := metric(t, w.Proc, `inferd_jobs_finished_total{status="succeeded"}`); n != 1 {
		t.Errorf("the worker counts %v jobs succeeded, want 1", n)
	}
	exported := families(t, s.Proc)
	for _, name := range []string{"inferd_jobs_finished_total", "inferd_job_duration_seconds", "inferd_job_queue_wait_seconds"} {
		if exported[name] {
			t.Errorf("the server in queue mode exports %s, which only the workers count", name)
		}
	}
	for _, name := range []string{"inferd_jobs_queued", "inferd_jobs_running", "inferd_job_workers"} {
		if !exported[name] {
			t.Errorf("the server in queue mode does not export %s", name)
		}
	}
}

// TestJobRecordSurvivesServerRestart: job records live in Redis, not in the server that
// took the submission. After that server stops, a new one on the same Redis serves the
// same records, a finished one and a pending one, and the pending one still runs.
func TestJobRecordSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a := c.startServer()
	w := c.startWorker()
	finished := a.submit(t, single("echo", "v1", `{"n":12345678901234567890}`))
	a.waitStatus(t, finished, "succeeded", 10*time.Second)
	// Without a worker the second job stays pending across the restart.
	w.Signal(syscall.SIGTERM)
	waitExit(t, w.Proc, 15*time.Second)
	pendingSpec := batch("echo", "v2", `1`, `{"x":[true,12345678901234567890]}`)
	pending := a.submit(t, pendingSpec)

	before := map[string][]byte{}
	for _, id := range []string{finished, pending} {
		resp := a.api.Get("/predict/async/"+id, devKey)
		if resp.Status != http.StatusOK {
			t.Fatalf("poll %s: %d %s", id, resp.Status, resp.Body)
		}
		before[id] = resp.Body
	}
	a.Signal(syscall.SIGTERM)
	waitExit(t, a.Proc, 15*time.Second)

	b := c.startServer()
	for id, want := range before {
		// Both paths serve the same record.
		for _, path := range []string{"/predict/async/" + id, "/jobs/" + id} {
			resp := b.api.Get(path, devKey)
			if resp.Status != http.StatusOK || !testkit.SameJSON(resp.Body, want) {
				t.Errorf("GET %s after the restart: %d %s\nbefore it: %s", path, resp.Status, resp.Body, want)
			}
		}
	}

	c.startWorker()
	rec := b.waitStatus(t, pending, "succeeded", 10*time.Second)
	if !testkit.SameJSON(rec.Result, pendingSpec.want()) {
		t.Errorf("result %s, want %s", rec.Result, pendingSpec.want())
	}
}

// TestWorkerSIGTERMDuringLongJob: a worker told to stop while it runs a job does not
// lose the job. Given time (SHUTDOWN_TIMEOUT longer than the job) it finishes the job
// and then exits; given less, it exits on time and puts the job back in the queue,
// where another worker runs it to the end.
func TestWorkerSIGTERMDuringLongJob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		shutdownTimeout time.Duration
		delay           time.Duration // of the job
		requeued        bool          // the job outlasts SHUTDOWN_TIMEOUT
	}{
		{name: "finished within SHUTDOWN_TIMEOUT", shutdownTimeout: 15 * time.Second, delay: 2 * time.Second},
		// The delay leaves time for a second worker to start while the job runs.
		{name: "re-queued after SHUTDOWN_TIMEOUT", shutdownTimeout: time.Second, delay: 5 * time.Second, requeued: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t)
			c.addSlowModel("slow", "v1", tc.delay)
			s := c.startServer()
			s.requireModel(t, "slow", "v1")
			first := c.startWorker("SHUTDOWN_TIMEOUT=" + tc.shutdownTimeout.String())
			spec := single("slow", "v1", `{"long":12345678901234567890}`)
			id := s.submit(t, spec)
			s.waitStatus(t, id, "running", 10*time.Second)

			var second *worker
			if tc.requeued {
				// Started only now, so the job is certainly the first worker's.
				second = c.startWorker()
				if rec := s.poll(t, id); rec.Status != "running" {
					t.Fatalf("the job ended before the second worker was up: %+v", rec)
				}
			}
			termAt := time.Now()
			first.Signal(syscall.SIGTERM)
			waitExit(t, first.Proc, tc.shutdownTimeout+10*time.Second)
			exitAt := time.Now()

			rec := s.waitStatus(t, id, "succeeded", 20*time.Second)
			if !testkit.SameJSON(rec.Result, spec.want()) {
				t.Errorf("result %s, want %s", rec.Result, spec.want())
			}
			if !tc.requeued {
				// Finished by the stopping worker: after the signal and before it exited.
				if !rec.FinishedAt.After(termAt) || !rec.FinishedAt.Before(exitAt) {
					t.Errorf("finished at %s; SIGTERM at %s, exit at %s", rec.FinishedAt, termAt, exitAt)
				}
				return
			}
			// The first worker kept to its timeout (plus closing down), and the job was
			// finished by the second one after the first had gone.
			if took := exitAt.Sub(termAt); took > tc.shutdownTimeout+3*time.Second {
				t.Errorf("the worker took %s to stop with SHUTDOWN_TIMEOUT=%s", took, tc.shutdownTimeout)
			}
			if !rec.FinishedAt.After(exitAt) {
				t.Errorf("finished at %s, before the first worker exited at %s", rec.FinishedAt, exitAt)
			}
			if n := metric(t, second.Proc, `inferd_jobs_finished_total{status="succeeded"}`); n != 1 {
				t.Errorf("the second worker finished %v jobs, want 1", n)
			}
		})
	}
}

// TestWorkerLogsItsConcurrency: the worker's start line gives the number of jobs it
// runs at once, WORKER_CONCURRENCY's default (4 × CPUs) worked out, not the setting
// as read (0 when unset).
func TestWorkerLogsItsConcurrency(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	for _, tc := range []struct {
		name, setting string
		want          int
	}{
		{"unset", "", 4 * runtime.NumCPU()},
		{"set", "3", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := c.startWorker("WORKER_CONCURRENCY=" + tc.setting)
			line := regexp.MustCompile(`msg="worker taking jobs" concurrency=(\d+)`)
			var m []string
			testkit.Eventually(t, 10*time.Second, func() bool {
				m = line.FindStringSubmatch(w.Logs())
				return m != nil
			}, "a start line with the concurrency:\n%s", func() string { return w.Logs() })
			if got, _ := strconv.Atoi(m[1]); got != tc.want {
				t.Errorf("logged concurrency=%d, want %d (WORKER_CONCURRENCY=%q on %d CPUs)", got, tc.want, tc.setting, runtime.NumCPU())
			}
		})
	}
}
