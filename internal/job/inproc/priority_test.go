package inproc_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/inproc"
	"github.com/inferd/inferd/internal/job/memstore"
)

// starts is a predictor that records the order jobs start in; the first call waits
// for release, so that every job is queued before the one worker takes the next.
type starts struct {
	mu      sync.Mutex
	order   []string
	entered chan struct{}
	release chan struct{}
}

func (s *starts) Predict(_ context.Context, _, _ string, items []json.RawMessage) ([]json.RawMessage, error) {
	s.mu.Lock()
	s.order = append(s.order, string(items[0]))
	first := len(s.order) == 1
	s.mu.Unlock()
	if first {
		s.entered <- struct{}{}
		<-s.release
	}
	return items, nil
}

// TestPriorities: with its one worker busy, 500 low jobs and then 20 high ones queued,
// the high ones start first, bar the few low ones the 6:1 weights let through; and a
// job whose deadline passes while it waits ends failed, unrun. In a synctest bubble,
// so that the deadline passes on a clock the test moves.
func TestPriorities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := memstore.New(memstore.Options{})
		pred := &starts{entered: make(chan struct{}), release: make(chan struct{})}
		r := inproc.New(&job.Executor{Store: store, Predictor: pred}, inproc.Options{Workers: 1, QueueSize: 1024})
		t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
		svc := &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: r}}
		ctx := context.Background()
		submit := func(name string, p job.Priority, deadline *time.Time) job.Record {
			t.Helper()
			rec, _, err := svc.SubmitWith(ctx, job.Submission{Model: "m", Version: "v1", Input: json.RawMessage(strconv.Quote(name)), Priority: p, Deadline: deadline})
			if err != nil {
				t.Fatal(err)
			}
			return rec
		}
		submit("busy", job.PriorityNormal, nil)
		<-pred.entered
		var ids []string
		for i := range 500 {
			ids = append(ids, submit("low-"+strconv.Itoa(i), job.PriorityLow, nil).ID)
		}
		deadline := time.Now().Add(50 * time.Millisecond)
		expiring := submit("expiring", job.PriorityHigh, &deadline)
		for i := range 20 {
			ids = append(ids, submit("high-"+strconv.Itoa(i), job.PriorityHigh, nil).ID)
		}
		time.Sleep(time.Until(deadline)) // the bubble's clock: the deadline passes while the worker is busy
		close(pred.release)
		synctest.Wait() // the queue drained: the worker waits for more
		for _, id := range append(ids, expiring.ID) {
			if rec, err := store.Get(ctx, id); err != nil || !rec.Status.Final() {
				t.Fatalf("job %s did not finish: %v %v", id, rec.Status, err)
			}
		}
		rec, _ := store.Get(ctx, expiring.ID)
		if rec.Status != job.StatusFailed || !strings.Contains(rec.Error, "deadline") || !rec.StartedAt.IsZero() {
			t.Errorf("the expired job: %s %q, started %v", rec.Status, rec.Error, rec.StartedAt)
		}
		pred.mu.Lock()
		order := pred.order[1:]
		pred.mu.Unlock()
		last := -1
		for i, name := range order {
			if name == `"expiring"` {
				t.Errorf("the expired job ran")
			}
			if strings.HasPrefix(name, `"high-`) {
				last = i
			}
		}
		t.Logf("the last of 20 high jobs, queued after 500 low ones, started at number %d of %d", last+1, len(order))
		// Six picks in seven are high while high jobs wait: 20 low ones before the last
		// high one are all but impossible.
		if last < 0 || last >= 40 {
			t.Errorf("the last high job started at number %d: %v", last+1, order[:min(len(order), 45)])
		}
	})
}
