package queuetest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPrioritiesAndDeadlines: 500 low jobs and then 20 high ones are submitted before
// the one worker, running one job at a time, starts: the high ones start first, but
// for the few low ones the 6:1 weights let through (the order measured from
// started_at is logged). A high job whose deadline passes before the worker starts
// ends failed, unrun. With QUEUE_SHARDS=2, so that the priority queues beside each
// shard's are used too. The backlog is there before the worker is, rather than
// behind a slow job: on a busy machine the submissions took longer than any slow
// job the test could afford to wait for, which then finished too soon to hold them.
func TestPrioritiesAndDeadlines(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	env := []string{"QUEUE_SHARDS=2", "MAX_JOBS_PER_KEY=0", "MAX_JOB_BYTES_PER_KEY=0"}
	s := c.startServer(env...)

	submitAll := func(n int, priority string) []string {
		ids := make([]string, n)
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					spec := single("echo", "v1", fmt.Sprintf(`{"%s":%d}`, priority, i))
					id, err := s.submitRaw(spec.path(), fmt.Sprintf(`{"model":"echo","version":"v1","data":%s,"priority":%q}`, spec.Data, priority))
					if err != nil {
						errs <- err
						return
					}
					ids[i] = id
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		return ids
	}
	low := submitAll(500, "low")
	expiry := time.Now().Add(time.Second)
	deadline := expiry.UTC().Format(time.RFC3339Nano)
	expiring, err := s.submitRaw("/predict/async", `{"model":"echo","version":"v1","data":"expiring","priority":"high","deadline":"`+deadline+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	high := submitAll(20, "high")
	time.Sleep(time.Until(expiry)) // the expiring job's deadline passes, on the clock the child worker reads, before any worker runs
	c.startWorker(append(env, "WORKER_CONCURRENCY=1")...)

	type start struct {
		at   time.Time
		high bool
	}
	var starts []start
	for _, ids := range [][]string{low, high} {
		for _, id := range ids {
			rec := s.waitStatus(t, id, "succeeded", 60*time.Second)
			starts = append(starts, start{*rec.StartedAt, len(starts) >= len(low)})
		}
	}
	slices.SortStableFunc(starts, func(a, b start) int { return a.at.Compare(b.at) })
	last := -1
	for i, st := range starts {
		if st.high {
			last = i
		}
	}
	t.Logf("the last of 20 high jobs, submitted after 500 low ones, started at number %d of %d", last+1, len(starts))
	if last >= 40 {
		t.Errorf("the last high job started at number %d of %d", last+1, len(starts))
	}
	rec := s.waitStatus(t, expiring, "failed", 10*time.Second)
	if rec.ErrorMessage == nil || !strings.Contains(*rec.ErrorMessage, "deadline") || rec.StartedAt != nil {
		t.Errorf("the job past its deadline: %+v", rec)
	}
}

// submitRaw submits a raw body, for goroutines.
func (s *server) submitRaw(path, body string) (string, error) {
	resp, err := s.api.TryDo(s.api.NewRequest(http.MethodPost, path, devKey, body))
	if err != nil {
		return "", err
	}
	return submittedID(resp)
}
