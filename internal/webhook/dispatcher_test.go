package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/webhook"
)

// counts is an Observer that keeps what it heard.
type counts struct {
	mu       sync.Mutex
	attempts map[string]int
	done     map[job.CallbackState]int
}

func (c *counts) CallbackAttempt(o string) { c.mu.Lock(); c.attempts[o]++; c.mu.Unlock() }
func (c *counts) CallbackDone(s job.CallbackState) {
	c.mu.Lock()
	c.done[s]++
	c.mu.Unlock()
}

// finished records a job with a callback to url and finishes it as status, through
// the store's own writes, which queue the callback.
func finished(t *testing.T, store *memstore.Store, id, url string, status job.Status) {
	t.Helper()
	ctx := context.Background()
	rec := job.Record{ID: id, Status: job.StatusPending, Model: "echo", Version: "v1", Input: json.RawMessage(`1`), CreatedAt: time.Now(),
		Callback: job.Callback{URL: url, State: job.CallbackPending}}
	if err := store.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Update(ctx, id, func(r *job.Record) error {
		r.Status, r.FinishedAt, r.Input = status, time.Now(), nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestDispatcher: a callback answered 2xx is delivered once; one the receiver keeps
// refusing is retried with the same webhook-id until MaxAge, then failed; a job that
// finished cancelled is called back too. The record and the Observer say each.
func TestDispatcher(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{} // requests by webhook-id
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verify(testSecret, r.Header, body); err != nil {
			t.Errorf("receiver: %v", err)
		}
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
		if r.URL.Path == "/down" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer rcv.Close()

	store := memstore.New(memstore.Options{})
	obs := &counts{attempts: map[string]int{}, done: map[job.CallbackState]int{}}
	d := webhook.NewDispatcher(webhook.DispatcherOptions{
		Store: store, Queue: store, Sender: newSender(t, "127.0.0.1", 5*time.Second),
		Encode: func(r job.Record) ([]byte, error) { return json.Marshal(r) },
		MaxAge: 2500 * time.Millisecond, PollInterval: 10 * time.Millisecond, Observer: obs,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	defer func() { cancel(); <-done }()

	finished(t, store, "ok", rcv.URL+"/up", job.StatusSucceeded)
	finished(t, store, "cancelled", rcv.URL+"/up", job.StatusCancelled)
	finished(t, store, "down", rcv.URL+"/down", job.StatusFailed)

	tests := []struct {
		id          string
		state       job.CallbackState
		minAttempts int
	}{
		{"ok", job.CallbackDelivered, 1},
		{"cancelled", job.CallbackDelivered, 1},
		// 2.5 s of retries 1 s and 2 s apart, the last at the deadline: 3 at least.
		{"down", job.CallbackFailed, 3},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			var rec job.Record
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var err error
				if rec, err = store.Get(context.Background(), tt.id); err != nil {
					t.Fatal(err)
				}
				if rec.Callback.State != job.CallbackPending {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("callback still pending after 20 s: %+v", rec.Callback)
				}
			}
			mu.Lock()
			requests := got[tt.id]
			mu.Unlock()
			cb := rec.Callback
			if cb.State != tt.state || cb.Attempts < tt.minAttempts || cb.Attempts != requests {
				t.Errorf("callback %+v after %d requests, want %s after at least %d", cb, requests, tt.state, tt.minAttempts)
			}
			if tt.state == job.CallbackFailed && cb.LastError == "" {
				t.Error("a failed callback without its last error")
			}
		})
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.done[job.CallbackDelivered] != 2 || obs.done[job.CallbackFailed] != 1 || obs.attempts[webhook.AttemptRefused] < 3 {
		t.Errorf("observer heard %v and %v", obs.done, obs.attempts)
	}
}
