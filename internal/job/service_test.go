package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/inferd/inferd/internal/job"
)

func TestSubmit(t *testing.T) {
	tests := []struct {
		name  string
		batch bool
		input string
	}{
		{"single", false, `{"features":[0.1,12345678901234567890]}`},
		{"batch", true, `[1,null,"x"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := &recordingStore{Store: newStore(c)}
			r := &fakeRunner{}
			svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: r}, Now: c.Now}
			rec, err := svc.Submit(context.Background(), "echo", "v2", tt.batch, json.RawMessage(tt.input))
			if err != nil {
				t.Fatalf("Submit: %v", err)
			}
			if _, err := uuid.Parse(rec.ID); err != nil {
				t.Errorf("job id %q is not a UUID: %v", rec.ID, err)
			}
			if rec.Status != job.StatusPending || rec.Model != "echo" || rec.Version != "v2" || rec.Batch != tt.batch ||
				string(rec.Input) != tt.input || !rec.CreatedAt.Equal(t0) {
				t.Errorf("Submit = %+v", rec)
			}
			if w := s.Writes(); !slices.Equal(w, []job.Status{job.StatusCreated, job.StatusPending}) {
				t.Errorf("writes %v, want created then pending", w)
			}
			if len(r.enqueued) != 1 || r.enqueued[0].ID != rec.ID || r.enqueued[0].Status != job.StatusCreated {
				t.Errorf("enqueued %+v, want the created record", r.enqueued)
			}
			if got := get(t, s, rec.ID); !reflect.DeepEqual(got, rec) {
				t.Errorf("stored %+v, returned %+v", got, rec)
			}
			if got, err := svc.Get(context.Background(), rec.ID); err != nil || got.ID != rec.ID {
				t.Errorf("Get = %+v, %v", got, err)
			}
		})
	}
}

func TestSubmitWhenTheRunnerRefuses(t *testing.T) {
	for _, enqueueErr := range []error{job.ErrQueueFull, job.ErrQueueUnavailable, job.ErrShuttingDown} {
		t.Run(enqueueErr.Error(), func(t *testing.T) {
			c := newClock()
			s := &recordingStore{Store: newStore(c)}
			svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: &fakeRunner{enqueueErr: enqueueErr}}, Now: c.Now}
			_, err := svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`1`))
			if !errors.Is(err, enqueueErr) {
				t.Fatalf("Submit = %v, want %v", err, enqueueErr)
			}
			if w := s.Writes(); !slices.Equal(w, []job.Status{job.StatusCreated, job.StatusFailed}) {
				t.Errorf("writes %v, want created then failed", w)
			}
			got := get(t, s, s.ids[0])
			if got.Status != job.StatusFailed || !strings.Contains(got.Error, "could not be queued") ||
				!strings.Contains(got.Error, enqueueErr.Error()) || got.FinishedAt.IsZero() {
				t.Errorf("record %+v, want failed saying why", got)
			}
		})
	}
}

// A worker may start the job before Submit marks it pending; it must not go back.
func TestSubmitRacingAWorker(t *testing.T) {
	c := newClock()
	mem := newStore(c)
	r := &fakeRunner{}
	r.onEnqueue = func(rec job.Record) {
		e := &job.Executor{Store: mem, Predictor: &predictor{}, Now: c.Now}
		if err := e.Execute(context.Background(), rec.ID); err != nil {
			t.Errorf("Execute: %v", err)
		}
	}
	svc := &job.Service{Store: mem, Submitter: job.Steps{Store: mem, Runner: r}, Now: c.Now}
	rec, err := svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`7`))
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	if got := get(t, mem, rec.ID); got.Status != job.StatusSucceeded || string(got.Result) != "7" {
		t.Errorf("record %s %s, want succeeded with 7", got.Status, got.Result)
	}
}

func TestSubmitWhenTheStoreFails(t *testing.T) {
	c := newClock()
	r := &fakeRunner{}
	s := &recordingStore{Store: newStore(c), failCreate: job.ErrQueueUnavailable}
	svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: r}, Now: c.Now}
	if _, err := svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`1`)); !errors.Is(err, job.ErrQueueUnavailable) {
		t.Errorf("Submit = %v", err)
	}
	if len(r.enqueued) != 0 {
		t.Error("a job with no record was queued")
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		from job.Status
		want error
	}{
		{job.StatusCreated, nil},
		{job.StatusPending, nil},
		{job.StatusRunning, nil},
		{job.StatusSucceeded, job.ErrFinished},
		{job.StatusFailed, job.ErrFinished},
		{job.StatusCancelled, job.ErrFinished},
	}
	for _, tt := range tests {
		t.Run(string(tt.from), func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			rec := create(t, s, job.Record{Status: tt.from, Input: json.RawMessage(`1`)})
			r := &fakeRunner{}
			svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: r}, Now: c.Now}
			got, err := svc.Cancel(context.Background(), rec.ID)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("Cancel = %v, want %v", err, tt.want)
			}
			stored := get(t, s, rec.ID)
			if tt.want != nil {
				if !reflect.DeepEqual(stored, rec) || len(r.abandoned) != 0 {
					t.Errorf("a refused cancel changed %+v or abandoned %v", stored, r.abandoned)
				}
				return
			}
			if got.Status != job.StatusCancelled || stored.Status != job.StatusCancelled || !stored.FinishedAt.Equal(t0) {
				t.Errorf("returned %s, stored %+v", got.Status, stored)
			}
			if !slices.Equal(r.abandoned, []string{rec.ID}) {
				t.Errorf("abandoned %v, want [%s]", r.abandoned, rec.ID)
			}
		})
	}
}

func TestCancelEdgeCases(t *testing.T) {
	c := newClock()
	s := newStore(c)
	rec := create(t, s, job.Record{Status: job.StatusPending, Input: json.RawMessage(`1`)})
	svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: &fakeRunner{abandonErr: errBoom}}, Now: c.Now}

	if _, err := svc.Cancel(context.Background(), "no-such-job"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("Cancel of an unknown job = %v, want ErrNotFound", err)
	}
	// The record is the truth: it stays cancelled even when the runner cannot drop the job.
	got, err := svc.Cancel(context.Background(), rec.ID)
	if !errors.Is(err, errBoom) || got.Status != job.StatusCancelled {
		t.Errorf("Cancel = %+v, %v; want the cancelled record and the runner's error", got, err)
	}
	if stored := get(t, s, rec.ID); stored.Status != job.StatusCancelled {
		t.Errorf("stored %s", stored.Status)
	}
	if _, err := svc.Get(context.Background(), "no-such-job"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("Get = %v, want ErrNotFound", err)
	}
}

// TestCancelFor (see docs/design.md#a-key-cancels-its-own-jobs-only): a key cancels its own jobs only. Another key's
// job, or a job of no key, is ErrNotFound worded exactly as an id that does not exist,
// whatever its status (a finished one too: job_finished would confirm the id), and
// is left as it was; Cancel, an admin's, cancels any.
func TestCancelFor(t *testing.T) {
	tests := []struct {
		name   string
		owner  string // the job's
		status job.Status
		by     *string // nil: Cancel
		want   error
	}{
		{"its own key", "k1", job.StatusPending, ptr("k1"), nil},
		{"its own key, running", "k1", job.StatusRunning, ptr("k1"), nil},
		{"its own key, finished", "k1", job.StatusSucceeded, ptr("k1"), job.ErrFinished},
		{"another key", "k1", job.StatusPending, ptr("k2"), job.ErrNotFound},
		{"another key, running", "k1", job.StatusRunning, ptr("k2"), job.ErrNotFound},
		{"another key, finished", "k1", job.StatusSucceeded, ptr("k2"), job.ErrNotFound},
		{"a key, a job of no key", "", job.StatusPending, ptr("k2"), job.ErrNotFound},
		{"an admin", "k1", job.StatusPending, nil, nil},
		{"an admin, a job of no key", "", job.StatusPending, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			rec := create(t, s, job.Record{Status: tt.status, Owner: tt.owner, Input: json.RawMessage(`1`)})
			r := &fakeRunner{}
			svc := &job.Service{Store: s, Submitter: job.Steps{Store: s, Runner: r}, Now: c.Now}
			var err error
			if tt.by == nil {
				_, err = svc.Cancel(context.Background(), rec.ID)
			} else {
				_, err = svc.CancelFor(context.Background(), *tt.by, rec.ID)
			}
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("cancel = %v, want %v", err, tt.want)
			}
			if tt.want == nil {
				if got := get(t, s, rec.ID); got.Status != job.StatusCancelled {
					t.Errorf("stored %s, want cancelled", got.Status)
				}
				return
			}
			if got := get(t, s, rec.ID); !reflect.DeepEqual(got, rec) || len(r.abandoned) != 0 {
				t.Errorf("a refused cancel changed %+v or abandoned %v", got, r.abandoned)
			}
			if tt.want == job.ErrNotFound {
				_, missing := svc.CancelFor(context.Background(), *tt.by, "no-such-job")
				if want := strings.Replace(missing.Error(), "no-such-job", rec.ID, 1); err.Error() != want {
					t.Errorf("another key's job: %q; an unknown id: %q", err, missing)
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }

// A runner that records and queues in one step gets the record once, already pending:
// no write of created, none of pending after it.
func TestSubmitThroughARecordingRunner(t *testing.T) {
	t.Run("accepted", func(t *testing.T) {
		c := newClock()
		s := &recordingStore{Store: newStore(c)}
		r := &atOnceRunner{store: s}
		svc := &job.Service{Store: s, Submitter: r, Now: c.Now}
		rec, err := svc.Submit(context.Background(), "echo", "v2", true, json.RawMessage(`[1,2]`))
		if err != nil {
			t.Fatalf("Submit: %v", err)
		}
		if rec.Status != job.StatusPending || rec.Model != "echo" || rec.Version != "v2" || !rec.Batch ||
			string(rec.Input) != `[1,2]` || !rec.CreatedAt.Equal(t0) {
			t.Errorf("Submit = %+v", rec)
		}
		if w := s.Writes(); !slices.Equal(w, []job.Status{job.StatusPending}) {
			t.Errorf("writes %v, want one: pending", w)
		}
		if len(r.enqueued) != 1 || !reflect.DeepEqual(r.enqueued[0], rec) {
			t.Errorf("queued %+v, want %+v", r.enqueued, rec)
		}
		if got := get(t, s, rec.ID); !reflect.DeepEqual(got, rec) {
			t.Errorf("stored %+v, returned %+v", got, rec)
		}
	})
	t.Run("refused", func(t *testing.T) {
		c := newClock()
		s := &recordingStore{Store: newStore(c)}
		svc := &job.Service{Store: s, Submitter: &atOnceRunner{store: s, createErr: job.ErrQueueUnavailable}, Now: c.Now}
		if _, err := svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`1`)); !errors.Is(err, job.ErrQueueUnavailable) {
			t.Fatalf("Submit = %v, want %v", err, job.ErrQueueUnavailable)
		}
		if w := s.Writes(); len(w) != 0 {
			t.Errorf("writes %v after a refusal that wrote nothing", w)
		}
	})
	t.Run("not replicated", func(t *testing.T) {
		c := newClock()
		s := &recordingStore{Store: newStore(c)}
		svc := &job.Service{Store: s, Submitter: &atOnceRunner{store: s}, Now: c.Now,
			Replicas: failingReplicas{job.ErrQueueUnavailable}}
		if _, err := svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`1`)); !errors.Is(err, job.ErrQueueUnavailable) {
			t.Fatalf("Submit = %v, want %v", err, job.ErrQueueUnavailable)
		}
		if w := s.Writes(); !slices.Equal(w, []job.Status{job.StatusPending, job.StatusFailed}) {
			t.Errorf("writes %v, want pending then failed", w)
		}
		if got := get(t, s, s.ids[0]); !strings.Contains(got.Error, "did not reach a replica") {
			t.Errorf("record %+v, want failed saying why", got)
		}
	})
}
