package queuetest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// flood is a stream of job submissions through several servers while something
// happens to Redis: each job is submitted until a server accepts it, and a 503 is
// counted and retried, as a client would.
type flood struct {
	accepted atomic.Int64
	refused  atomic.Int64 // 503 answers
	jobs     []*clusterJob

	mu sync.Mutex
	// down is, per server, when its current run of 503 answers began (zero: none).
	down []time.Time
	// longest503 is the longest time a server kept answering 503 to submissions: from
	// its first 503 to its next acceptance.
	longest503 time.Duration
	// slowest is the slowest single submission, whatever its answer.
	slowest time.Duration
	// last503 is when the last 503 answer came.
	last503 time.Time
}

// runFlood submits total echo jobs through servers from submitters goroutines and
// calls event once when at jobs were accepted, while the submissions go on. It returns
// when every job was accepted, or fails the test after within.
func runFlood(t *testing.T, servers []*server, total, submitters, at int, within time.Duration, event func()) *flood {
	t.Helper()
	f := &flood{jobs: make([]*clusterJob, total), down: make([]time.Time, len(servers))}
	for i := range f.jobs {
		f.jobs[i] = &clusterJob{spec: echoJob(i), via: i % len(servers)}
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		fire    = make(chan struct{})
		once    sync.Once
		evDone  = make(chan struct{})
		timeout = time.Now().Add(within)
	)
	go func() {
		defer close(evDone)
		select {
		case <-fire:
			event()
		case <-time.After(within):
		}
	}()
	for range submitters {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < total; i = int(next.Add(1) - 1) {
				j := f.jobs[i]
				for {
					if time.Now().After(timeout) {
						t.Errorf("job %d not accepted within %s", i, within)
						return
					}
					// Retries go to the next server, as a load balancer would.
					s := servers[j.via]
					start := time.Now()
					id, status, err := s.submitStatus(j.spec)
					f.observe(j.via, status, time.Since(start))
					if err == nil {
						j.id = id
						if f.accepted.Add(1) == int64(at) {
							once.Do(func() { close(fire) })
						}
						break
					}
					if status != http.StatusServiceUnavailable {
						t.Errorf("job %d: %v", i, err)
						return
					}
					j.via = (j.via + 1) % len(servers)
					time.Sleep(20 * time.Millisecond) // a load balancer's pause before the retry to the next child server
				}
			}
		})
	}
	wg.Wait()
	once.Do(func() { close(fire) })
	<-evDone
	return f
}

func (f *flood) observe(srv, status int, took time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slowest = max(f.slowest, took)
	switch {
	case status == http.StatusServiceUnavailable:
		f.refused.Add(1)
		f.last503 = time.Now()
		if f.down[srv].IsZero() {
			f.down[srv] = time.Now().Add(-took)
		}
	case status == http.StatusOK && !f.down[srv].IsZero():
		f.longest503 = max(f.longest503, time.Since(f.down[srv]))
		f.down[srv] = time.Time{}
	}
}

// submitStatus is trySubmit that also returns the status (0 when nothing answered).
func (s *server) submitStatus(spec jobSpec) (string, int, error) {
	resp, err := s.api.TryDo(s.api.NewRequest(http.MethodPost, spec.path(), devKey, spec))
	if err != nil {
		return "", 0, err
	}
	if resp.Status != http.StatusOK {
		return "", resp.Status, fmt.Errorf("submit: status %d: %s", resp.Status, resp.Body)
	}
	id, err := s.trySubmitBody(resp.Body)
	return id, resp.Status, err
}

func (s *server) trySubmitBody(body []byte) (string, error) {
	id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(body)), `{"job_id":"`), `"}`)
	if id == "" || strings.ContainsAny(id, `"{}`) {
		return "", errors.New("submit: no job_id in " + string(body))
	}
	return id, nil
}

// outcome is what became of the accepted jobs of a flood.
type outcome struct {
	succeeded, failed, lost int
	wrong                   []string // jobs that succeeded with another job's result, or a record that does not fit
	finishedIn              time.Duration
}

// settle polls every accepted job (through the server it was not submitted to) until
// all are final or within has passed, and sorts them out. A job whose record is gone
// (404) or still unfinished at the end is lost; polls that answer 503 are retried.
func (f *flood) settle(t *testing.T, servers []*server, within time.Duration) outcome {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	var out outcome
	left := f.jobs
	gone := map[*clusterJob]bool{}
	for len(left) > 0 && time.Now().Before(deadline) {
		var (
			mu    sync.Mutex
			still []*clusterJob
			work  = make(chan *clusterJob)
			wg    sync.WaitGroup
		)
		for range 8 {
			wg.Go(func() {
				for j := range work {
					rec, err := servers[(j.via+1)%len(servers)].tryPoll(j.id)
					if err == nil {
						j.last = rec
					}
					mu.Lock()
					switch {
					case err != nil && strings.Contains(err.Error(), "status 404"):
						gone[j] = true
					case err != nil || !rec.final():
						still = append(still, j)
					}
					mu.Unlock()
				}
			})
		}
		for _, j := range left {
			work <- j
		}
		close(work)
		wg.Wait()
		if left = still; len(left) > 0 {
			time.Sleep(250 * time.Millisecond) // the child servers and workers finish jobs meanwhile; the next round polls what is left
		}
	}
	out.finishedIn = time.Since(start)
	unfinished := map[*clusterJob]bool{}
	for _, j := range left {
		unfinished[j] = true
	}
	for i, j := range f.jobs {
		switch {
		case gone[j] || unfinished[j]:
			out.lost++
			if out.lost <= 3 {
				t.Logf("lost job %d (%s): gone %v, last seen %+v", i, j.id, gone[j], j.last)
			}
		case j.last.Status == "succeeded":
			out.succeeded++
			if !testkit.SameJSON(j.last.Result, j.spec.want()) || j.last.JobID != j.id {
				out.wrong = append(out.wrong, fmt.Sprintf("job %d (%s): %+v, want result %s", i, j.id, j.last, j.spec.want()))
			}
		default:
			out.failed++
			if out.failed <= 3 {
				t.Logf("job %d (%s) ended %s: %+v", i, j.id, j.last.Status, j.last)
			}
		}
	}
	return out
}

// report logs a flood's figures and fails the test on any job not succeeded.
func report(t *testing.T, what string, f *flood, o outcome) {
	t.Helper()
	f.mu.Lock()
	longest, slowest := f.longest503, f.slowest
	f.mu.Unlock()
	t.Logf("%s: accepted %d, refused (503) %d, succeeded %d, failed %d, lost %d; "+
		"longest run of 503 %s, slowest submission %s; all final %s after the flood",
		what, f.accepted.Load(), f.refused.Load(), o.succeeded, o.failed, o.lost,
		longest.Round(time.Millisecond), slowest.Round(time.Millisecond), o.finishedIn.Round(time.Millisecond))
	if o.failed > 0 || o.lost > 0 {
		t.Errorf("%s: of %d accepted jobs %d failed and %d were lost, want every one succeeded", what, f.accepted.Load(), o.failed, o.lost)
	}
	for _, w := range o.wrong {
		t.Error(w)
	}
}
