package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/testkit"
)

func TestExecute(t *testing.T) {
	twoResults := func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
		return []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`2`)}, nil
	}
	failing := func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
		return nil, errors.New("execution error: model \"m\": shape mismatch")
	}
	// invalidAt fails as a pipeline does on input it rejects: at an item, by index.
	invalidAt := func(i int) func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
		return func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
			return nil, pipeline.AtItem(i, pipeline.Invalid(".features", "expected 4 numbers, got 2"))
		}
	}
	tests := []struct {
		name       string
		rec        job.Record
		fn         func(context.Context, []json.RawMessage) ([]json.RawMessage, error)
		wantStatus job.Status
		wantResult string
		wantErrMsg string
		wantCalls  int32
	}{
		{
			name:       "pending single",
			rec:        job.Record{Status: job.StatusPending, Input: json.RawMessage(`{"x":12345678901234567890}`)},
			wantStatus: job.StatusSucceeded, wantResult: `{"x":12345678901234567890}`, wantCalls: 1,
		},
		{
			name:       "pending batch keeps order",
			rec:        job.Record{Status: job.StatusPending, Batch: true, Input: json.RawMessage(`[3,"b",null,{"a":[1]}]`)},
			wantStatus: job.StatusSucceeded, wantResult: `[3,"b",null,{"a":[1]}]`, wantCalls: 1,
		},
		{
			name:       "created, taken before it was marked pending",
			rec:        job.Record{Status: job.StatusCreated, Input: json.RawMessage(`1`)},
			wantStatus: job.StatusSucceeded, wantResult: `1`, wantCalls: 1,
		},
		{
			name:       "running again after a crash is re-run",
			rec:        job.Record{Status: job.StatusRunning, StartedAt: t0.Add(-time.Hour), Input: json.RawMessage(`"again"`)},
			wantStatus: job.StatusSucceeded, wantResult: `"again"`, wantCalls: 1,
		},
		{
			name:       "pipeline error",
			rec:        job.Record{Status: job.StatusPending, Input: json.RawMessage(`1`)},
			fn:         failing,
			wantStatus: job.StatusFailed, wantErrMsg: "shape mismatch", wantCalls: 1,
		},
		{
			name:       "single job given two results",
			rec:        job.Record{Status: job.StatusPending, Input: json.RawMessage(`1`)},
			fn:         twoResults,
			wantStatus: job.StatusFailed, wantErrMsg: "2 results", wantCalls: 1,
		},
		{
			name:       "input error of a single job names data",
			rec:        job.Record{Status: job.StatusPending, Input: json.RawMessage(`[1,2]`)},
			fn:         invalidAt(0),
			wantStatus: job.StatusFailed, wantErrMsg: "data.features: expected 4 numbers, got 2", wantCalls: 1,
		},
		{
			name:       "input error of a batch job names the item",
			rec:        job.Record{Status: job.StatusPending, Batch: true, Input: json.RawMessage(`[[1,2,3,4],[1,2]]`)},
			fn:         invalidAt(1),
			wantStatus: job.StatusFailed, wantErrMsg: "items[1].features: expected 4 numbers, got 2", wantCalls: 1,
		},
		{
			name:       "batch input that is not an array",
			rec:        job.Record{Status: job.StatusPending, Batch: true, Input: json.RawMessage(`{"not":"items"}`)},
			wantStatus: job.StatusFailed, wantErrMsg: "input", wantCalls: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			rec := create(t, s, tt.rec)
			p := &predictor{fn: tt.fn}
			obs := &observer{}
			e := &job.Executor{Store: s, Predictor: p, Observer: obs, Now: c.Now}
			c.Advance(time.Second)
			if err := e.Execute(context.Background(), rec.ID); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			got := get(t, s, rec.ID)
			if got.Status != tt.wantStatus {
				t.Errorf("status %s, want %s", got.Status, tt.wantStatus)
			}
			if string(got.Result) != tt.wantResult {
				t.Errorf("result %s, want %s", got.Result, tt.wantResult)
			}
			if !strings.Contains(got.Error, tt.wantErrMsg) || (tt.wantErrMsg == "") != (got.Error == "") {
				t.Errorf("error message %q, want one containing %q", got.Error, tt.wantErrMsg)
			}
			if n := p.calls.Load(); n != tt.wantCalls {
				t.Errorf("predictor called %d times, want %d", n, tt.wantCalls)
			}
			wantStarted := t0.Add(time.Second)
			if tt.rec.Status == job.StatusRunning { // a redelivery keeps the first start
				wantStarted = tt.rec.StartedAt
			}
			if !got.StartedAt.Equal(wantStarted) || !got.FinishedAt.Equal(t0.Add(time.Second)) {
				t.Errorf("started %v, finished %v; want %v and %v", got.StartedAt, got.FinishedAt, wantStarted, t0.Add(time.Second))
			}
			if obs.started.Load() != 1 || obs.finished.Load() != 1 || obs.last.Status != tt.wantStatus {
				t.Errorf("observer: started %d, finished %d with %s", obs.started.Load(), obs.finished.Load(), obs.last.Status)
			}
		})
	}
}

func TestExecuteSkipsFinishedJobs(t *testing.T) {
	tests := []struct {
		name string
		rec  job.Record
	}{
		{"succeeded", job.Record{Status: job.StatusSucceeded, Result: json.RawMessage(`"first"`), FinishedAt: t0}},
		{"failed", job.Record{Status: job.StatusFailed, Error: "first error", FinishedAt: t0}},
		{"cancelled", job.Record{Status: job.StatusCancelled, FinishedAt: t0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			tt.rec.Input = json.RawMessage(`1`)
			rec := create(t, s, tt.rec)
			p, obs := &predictor{}, &observer{}
			e := &job.Executor{Store: s, Predictor: p, Observer: obs, Now: c.Now}
			if err := e.Execute(context.Background(), rec.ID); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if n := p.calls.Load(); n != 0 {
				t.Errorf("a %s job ran %d times", tt.name, n)
			}
			if got := get(t, s, rec.ID); !reflect.DeepEqual(got, rec) {
				t.Errorf("record changed:\n got %+v\nwant %+v", got, rec)
			}
			if obs.started.Load() != 0 || obs.finished.Load() != 0 {
				t.Error("observer told of a job that did not run")
			}
		})
	}
}

func TestExecuteRunsOnce(t *testing.T) {
	c := newClock()
	s := newStore(c)
	rec := create(t, s, job.Record{Status: job.StatusPending, Input: json.RawMessage(`[1,2]`), Batch: true})
	p := &predictor{}
	e := &job.Executor{Store: s, Predictor: p, Now: c.Now}
	if err := e.Execute(context.Background(), rec.ID); err != nil {
		t.Fatal(err)
	}
	first := get(t, s, rec.ID)
	c.Advance(time.Minute)
	for range 3 { // at-least-once delivery
		if err := e.Execute(context.Background(), rec.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.calls.Load(); n != 1 {
		t.Errorf("predictor called %d times, want 1", n)
	}
	if got := get(t, s, rec.ID); !reflect.DeepEqual(got, first) {
		t.Errorf("a repeated delivery changed the record:\n got %+v\nwant %+v", got, first)
	}
}

func TestExecuteUnknownJob(t *testing.T) {
	p := &predictor{}
	e := &job.Executor{Store: newStore(newClock()), Predictor: p}
	if err := e.Execute(context.Background(), "no-such-job"); err != nil {
		t.Errorf("Execute = %v; an expired job has nothing to run", err)
	}
	if p.calls.Load() != 0 {
		t.Error("predictor called for an unknown job")
	}
}

// A job cancelled while it runs keeps its cancelled status: the result that arrives
// afterwards is dropped.
func TestExecuteDiscardsALateResult(t *testing.T) {
	tests := []struct {
		name   string
		result error // of the run after the cancel
	}{
		{"late success", nil},
		{"late failure", errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			rec := create(t, s, job.Record{Status: job.StatusPending, Input: json.RawMessage(`1`)})
			svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: &fakeRunner{}}, Now: c.Now}
			p := &predictor{fn: func(ctx context.Context, items []json.RawMessage) ([]json.RawMessage, error) {
				if _, err := svc.Cancel(ctx, rec.ID); err != nil {
					t.Errorf("Cancel: %v", err)
				}
				return items, tt.result
			}}
			obs := &observer{}
			e := &job.Executor{Store: s, Predictor: p, Observer: obs, Now: c.Now}
			if err := e.Execute(context.Background(), rec.ID); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			got := get(t, s, rec.ID)
			if got.Status != job.StatusCancelled || got.Result != nil || got.Error != "" {
				t.Errorf("record %s, result %s, error %q; want cancelled with neither", got.Status, got.Result, got.Error)
			}
			if obs.finished.Load() != 0 {
				t.Error("observer told the job finished by this run")
			}
		})
	}
}

// When the run's context ends (a worker shutting down) the job is left running, so the
// queue delivers it again, and Execute says it was interrupted.
func TestExecuteInterrupted(t *testing.T) {
	c := newClock()
	s := newStore(c)
	rec := create(t, s, job.Record{Status: job.StatusPending, Input: json.RawMessage(`1`)})
	ctx, cancel := context.WithCancel(context.Background())
	p := &predictor{fn: func(ctx context.Context, _ []json.RawMessage) ([]json.RawMessage, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	obs := &observer{}
	e := &job.Executor{Store: s, Predictor: p, Observer: obs, Now: c.Now}
	err := e.Execute(ctx, rec.ID)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute = %v, want context.Canceled", err)
	}
	got := get(t, s, rec.ID)
	if got.Status != job.StatusRunning || got.Error != "" {
		t.Errorf("record %s %q, want running with no error", got.Status, got.Error)
	}
	if obs.finished.Load() != 0 {
		t.Error("observer told an interrupted job finished")
	}

	// Redelivered, it runs to the end.
	p.fn = nil
	if err := e.Execute(context.Background(), rec.ID); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, rec.ID); got.Status != job.StatusSucceeded || string(got.Result) != "1" {
		t.Errorf("after redelivery: %s %s", got.Status, got.Result)
	}
}

func TestExecuteStoreFailures(t *testing.T) {
	tests := []struct {
		name       string
		failUpdate int // which Update fails: 0 starts the job, 1 records its outcome
		wantCalls  int32
		wantStatus job.Status
	}{
		{"cannot start", 0, 0, job.StatusPending},
		{"cannot record", 1, 1, job.StatusRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			mem := newStore(c)
			rec := create(t, mem, job.Record{Status: job.StatusPending, Input: json.RawMessage(`1`)})
			s := &recordingStore{Store: mem, failUpdate: func(n int) error {
				if n == tt.failUpdate {
					return job.ErrQueueUnavailable
				}
				return nil
			}}
			p := &predictor{}
			e := &job.Executor{Store: s, Predictor: p, Now: c.Now}
			if err := e.Execute(context.Background(), rec.ID); !errors.Is(err, job.ErrQueueUnavailable) {
				t.Errorf("Execute = %v, want the store's error", err)
			}
			if n := p.calls.Load(); n != tt.wantCalls {
				t.Errorf("predictor called %d times, want %d", n, tt.wantCalls)
			}
			if got := get(t, mem, rec.ID); got.Status != tt.wantStatus {
				t.Errorf("status %s, want %s", got.Status, tt.wantStatus)
			}
		})
	}
}

func TestFail(t *testing.T) {
	tests := []struct {
		status job.Status
		want   bool
	}{
		{job.StatusCreated, true},
		{job.StatusPending, true},
		{job.StatusRunning, true},
		{job.StatusSucceeded, false},
		{job.StatusFailed, false},
		{job.StatusCancelled, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			rec := create(t, s, job.Record{Status: tt.status, Input: json.RawMessage(`1`), Error: "earlier"})
			obs := &observer{}
			e := &job.Executor{Store: s, Predictor: &predictor{}, Observer: obs, Now: c.Now}
			ended, err := e.Fail(context.Background(), rec.ID, "timed out after 5m")
			if err != nil || ended != tt.want {
				t.Fatalf("Fail = %v, %v; want %v", ended, err, tt.want)
			}
			got := get(t, s, rec.ID)
			if tt.want {
				if got.Status != job.StatusFailed || got.Error != "timed out after 5m" || got.FinishedAt.IsZero() || obs.finished.Load() != 1 {
					t.Errorf("record %+v, observer %d", got, obs.finished.Load())
				}
				return
			}
			if !reflect.DeepEqual(got, rec) || obs.finished.Load() != 0 {
				t.Errorf("Fail changed a finished record: %+v", got)
			}
		})
	}
	e := &job.Executor{Store: newStore(newClock()), Predictor: &predictor{}}
	if ended, err := e.Fail(context.Background(), "no-such-job", "x"); ended || err != nil {
		t.Errorf("Fail of an unknown job = %v, %v", ended, err)
	}
}

// ExecuteFrom starts from the record the runner holds, and from the stored one when
// that has moved on since.
func TestExecuteFrom(t *testing.T) {
	tests := []struct {
		name  string
		since func(t *testing.T, s job.Store, id string) // what happened after queueing
		runs  bool
		want  job.Status
	}{
		{"held record current", func(*testing.T, job.Store, string) {}, true, job.StatusSucceeded},
		{"cancelled since", func(t *testing.T, s job.Store, id string) {
			if _, err := (&job.Service{Store: s, Submitter: &atOnceRunner{store: s}}).Cancel(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		}, false, job.StatusCancelled},
		{"finished by another delivery", func(t *testing.T, s job.Store, id string) {
			if err := (&job.Executor{Store: s, Predictor: &predictor{}}).Execute(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		}, false, job.StatusSucceeded},
		{"running on a worker that died", func(t *testing.T, s job.Store, id string) {
			if _, err := s.Update(context.Background(), id, func(r *job.Record) error {
				r.Status, r.StartedAt = job.StatusRunning, t0
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}, true, job.StatusSucceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := &recordingStore{Store: newStore(c)}
			held := create(t, s.Store, job.Record{Status: job.StatusPending, Input: json.RawMessage(`5`)})
			tt.since(t, s.Store, held.ID)
			p := &predictor{}
			e := &job.Executor{Store: s, Predictor: p, Now: c.Now}
			if err := e.ExecuteFrom(context.Background(), held); err != nil {
				t.Fatalf("ExecuteFrom: %v", err)
			}
			if ran := p.calls.Load() == 1; ran != tt.runs {
				t.Errorf("model called %d times; want a run: %v", p.calls.Load(), tt.runs)
			}
			got := get(t, s, held.ID)
			if got.Status != tt.want {
				t.Errorf("status %s, want %s", got.Status, tt.want)
			}
			if tt.runs && (string(got.Result) != "5" || got.StartedAt.IsZero()) {
				t.Errorf("record %+v, want result 5 and a start time", got)
			}
		})
	}
}

// ExecuteFresh writes a quick job once, from pending to final; a job that outlasts
// RunningAfter is marked running while it runs; one cancelled while it runs is stopped
// at that mark.
func TestExecuteFresh(t *testing.T) {
	type run struct {
		s       *recordingStore
		release chan struct{} // closed by the test to let a blocking model return
		marked  chan struct{} // closed when the store is first asked to write
		stopped atomic.Bool   // the model saw its context end
	}
	block := func(r *run) func(ctx context.Context, items []json.RawMessage) ([]json.RawMessage, error) {
		return func(ctx context.Context, items []json.RawMessage) ([]json.RawMessage, error) {
			select {
			case <-r.release:
				return items, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	tests := []struct {
		name  string
		held  job.Status
		after time.Duration
		model func(t *testing.T, r *run) func(context.Context, []json.RawMessage) ([]json.RawMessage, error)
		// during runs while the model blocks, when the test has a model that does
		during func(t *testing.T, r *run)
		fail   bool // the store fails the first write
		writes []job.Status
		want   job.Status
	}{
		{
			name:   "a job that ends within RunningAfter is written once",
			held:   job.StatusPending,
			after:  time.Hour,
			writes: []job.Status{job.StatusSucceeded}, want: job.StatusSucceeded,
		},
		{
			name:  "a long job is marked running",
			held:  job.StatusPending,
			after: time.Millisecond,
			model: func(t *testing.T, r *run) func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
				return block(r)
			},
			during: func(t *testing.T, r *run) {
				testkit.Eventually(t, 5*time.Second, func() bool { return get(t, r.s, "job-1").Status == job.StatusRunning }, "job-1 marked running")
				if got := get(t, r.s, "job-1"); !got.StartedAt.Equal(t0) {
					t.Errorf("running since %v, want %v", got.StartedAt, t0)
				}
			},
			writes: []job.Status{job.StatusRunning, job.StatusSucceeded}, want: job.StatusSucceeded,
		},
		{
			name:  "a job cancelled while it runs is stopped when it would be marked",
			held:  job.StatusPending,
			after: time.Millisecond,
			model: func(t *testing.T, r *run) func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
				return func(ctx context.Context, items []json.RawMessage) ([]json.RawMessage, error) {
					if _, err := (&job.Service{Store: r.s.Store, Submitter: job.Steps{Store: r.s.Store, Runner: &fakeRunner{}}}).Cancel(ctx, "job-1"); err != nil {
						t.Error(err)
					}
					select {
					case <-ctx.Done():
						r.stopped.Store(true)
						return nil, ctx.Err()
					case <-time.After(5 * time.Second):
						return items, nil
					}
				}
			},
			during: func(t *testing.T, r *run) {
				testkit.Eventually(t, 5*time.Second, r.stopped.Load, "the model stopped by the cancel")
			},
			writes: nil, want: job.StatusCancelled,
		},
		{
			name:  "a failed mark leaves the final write to try from the held record",
			held:  job.StatusPending,
			after: time.Millisecond,
			model: func(t *testing.T, r *run) func(context.Context, []json.RawMessage) ([]json.RawMessage, error) {
				return func(_ context.Context, items []json.RawMessage) ([]json.RawMessage, error) {
					<-r.marked
					return items, nil
				}
			},
			fail:   true,
			writes: []job.Status{job.StatusSucceeded}, want: job.StatusSucceeded,
		},
		{
			name:   "a negative RunningAfter marks it first",
			held:   job.StatusPending,
			after:  -1,
			writes: []job.Status{job.StatusRunning, job.StatusSucceeded}, want: job.StatusSucceeded,
		},
		{
			name:   "a held record that is not pending is marked first",
			held:   job.StatusRunning,
			writes: []job.Status{job.StatusRunning, job.StatusSucceeded}, want: job.StatusSucceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			r := &run{s: &recordingStore{Store: newStore(c)}, release: make(chan struct{}), marked: make(chan struct{})}
			var once sync.Once
			r.s.failUpdate = func(n int) error {
				once.Do(func() { close(r.marked) })
				if tt.fail && n == 0 {
					return errBoom
				}
				return nil
			}
			rec := job.Record{Status: tt.held, Input: json.RawMessage(`5`)}
			if tt.held == job.StatusRunning {
				rec.StartedAt = t0 // by a worker that died
			}
			held := create(t, r.s.Store, rec)
			p := &predictor{}
			if tt.model != nil {
				p.fn = tt.model(t, r)
			}
			obs := &observer{}
			e := &job.Executor{Store: r.s, Predictor: p, Observer: obs, Now: c.Now, RunningAfter: tt.after}
			errc := make(chan error, 1)
			go func() { errc <- e.ExecuteFresh(context.Background(), held) }()
			if tt.during != nil {
				tt.during(t, r)
			}
			close(r.release)
			if err := <-errc; err != nil {
				t.Fatalf("ExecuteFresh: %v", err)
			}
			if got := r.s.Writes(); !slices.Equal(got, tt.writes) {
				t.Errorf("writes %v, want %v", got, tt.writes)
			}
			got := get(t, r.s, held.ID)
			if got.Status != tt.want {
				t.Fatalf("status %s, want %s", got.Status, tt.want)
			}
			if tt.want == job.StatusSucceeded {
				if string(got.Result) != "5" || !got.StartedAt.Equal(t0) || got.FinishedAt.IsZero() {
					t.Errorf("record %+v, want result 5, started at %v and a finish time", got, t0)
				}
				if obs.started.Load() != 1 || obs.finished.Load() != 1 {
					t.Errorf("observer told of %d starts and %d finishes, want 1 and 1", obs.started.Load(), obs.finished.Load())
				}
			}
		})
	}
}
