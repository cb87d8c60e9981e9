package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/testkit"
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
	finishedBy(t, store, "", id, url, status)
}

// finishedBy is finished for a job of the key owner.
func finishedBy(t *testing.T, store *memstore.Store, owner, id, url string, status job.Status) {
	t.Helper()
	ctx := context.Background()
	rec := job.Record{ID: id, Owner: owner, Status: job.StatusPending, Model: "echo", Version: "v1", Input: json.RawMessage(`1`), CreatedAt: time.Now(),
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
			testkit.Eventually(t, 20*time.Second, func() bool {
				var err error
				if rec, err = store.Get(context.Background(), tt.id); err != nil {
					t.Fatal(err)
				}
				return rec.Callback.State != job.CallbackPending
			}, "callback still pending: %s", func() string { return fmt.Sprintf("%+v", rec.Callback) })
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

// startDispatcher runs a dispatcher on store, posting with sender, until the test ends,
// when it waits for its attempts under way: start it before the receivers, whose
// cleanups then run first.
func startDispatcher(t *testing.T, store *memstore.Store, sender *webhook.Sender, obs webhook.Observer) {
	t.Helper()
	startDispatcherWith(t, webhook.DispatcherOptions{Store: store, Queue: store, Sender: sender, Observer: obs})
}

// startDispatcherWith is startDispatcher with opts, their encoding and logger set here.
func startDispatcherWith(t *testing.T, opts webhook.DispatcherOptions) {
	t.Helper()
	opts.Encode = func(r job.Record) ([]byte, error) { return json.Marshal(r) }
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	d := webhook.NewDispatcher(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// hanging is a receiver that holds every request until the test ends or its sender
// gives up, and counts them: under way, and the shortest time between two of those
// after the first wave arriving. It measures that gap, not how many are under way at
// once, because it notices a sender gone only some time after the sender gave up: on
// a loaded machine, long enough for the next attempt to arrive first.
type hanging struct {
	url     string
	wave    int64
	release chan struct{}
	started atomic.Int64
	ended   atomic.Int64
	now     atomic.Int64 // under way

	mu     sync.Mutex
	last   time.Time     // when the latest request after the first wave arrived
	minGap time.Duration // the shortest time between two of them arriving; 0 before two
}

// gap is the shortest time between two requests after the first wave arriving, and
// whether there were two.
func (h *hanging) gap() (time.Duration, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.minGap, h.minGap > 0
}

func startHanging(t *testing.T, wave int64) *hanging {
	h := &hanging{wave: wave, release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read first: the server notices a sender gone only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		n := h.started.Add(1)
		h.now.Add(1)
		defer h.now.Add(-1)
		defer h.ended.Add(1)
		if n > h.wave {
			h.mu.Lock()
			now := time.Now()
			if g := max(now.Sub(h.last), time.Nanosecond); !h.last.IsZero() && (h.minGap == 0 || g < h.minGap) {
				h.minGap = g
			}
			h.last = now
			h.mu.Unlock()
		}
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(h.release) }) // before Close, which waits for the handlers
	h.url = srv.URL + "/hook"
	return h
}

// quick is a receiver that answers at once, and keeps when each webhook-id arrived.
type quick struct {
	url string
	mu  sync.Mutex
	got map[string]time.Time
}

func startQuick(t *testing.T) *quick {
	q := &quick{got: map[string]time.Time{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		q.got[r.Header.Get("webhook-id")] = time.Now()
		q.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	q.url = srv.URL + "/hook"
	return q
}

func (q *quick) count() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.got)
}

// TestDispatcherFairShare: at the default concurrency, key A's 120 callbacks to a
// receiver that never answers take every slot; key B's 5, to a receiver that answers
// at once, are delivered all the same while all of A's attempts still hang (the
// sender's timeout is long enough that none can end first).
func TestDispatcherFairShare(t *testing.T) {
	// The dispatcher first: it stops after the receivers have let their requests go.
	store := memstore.New(memstore.Options{})
	startDispatcher(t, store, newSender(t, "127.0.0.1", 10*time.Minute), nil)
	hang := startHanging(t, webhook.DefaultConcurrency)
	fast := startQuick(t)
	for i := range 120 {
		finishedBy(t, store, "A", fmt.Sprintf("a-%03d", i), hang.url, job.StatusSucceeded)
	}
	testkit.Eventually(t, time.Minute, func() bool { return hang.now.Load() == webhook.DefaultConcurrency }, "A's attempts taking every slot")
	for i := range 5 {
		finishedBy(t, store, "B", fmt.Sprintf("b-%d", i), fast.url, job.StatusSucceeded)
	}
	testkit.Eventually(t, time.Minute, func() bool { return fast.count() == 5 }, "B's 5 delivered")
	if n, ended := hang.started.Load(), hang.ended.Load(); n != webhook.DefaultConcurrency || ended != 0 {
		t.Errorf("A's receiver got %d requests, %d of them ended, want %d under way: A's share", n, ended, webhook.DefaultConcurrency)
	}
}

// TestDispatcherSlowLane: once a receiver has timed out, its callbacks go one at a
// time, the others waiting their turn in the queue without an attempt; the same key's
// callbacks to another receiver are delivered meanwhile, and the callbacks held back
// are on their records as pending, with no attempt counted for the wait.
func TestDispatcherSlowLane(t *testing.T) {
	store := memstore.New(memstore.Options{})
	const timeout = 300 * time.Millisecond
	startDispatcher(t, store, newSender(t, "127.0.0.1", timeout), nil)
	hang := startHanging(t, webhook.DefaultConcurrency)
	fast := startQuick(t)
	const jobs = 40
	for i := range jobs {
		finishedBy(t, store, "A", fmt.Sprintf("a-%03d", i), hang.url, job.StatusSucceeded)
	}
	testkit.Eventually(t, time.Minute, func() bool { return hang.started.Load() >= webhook.DefaultConcurrency+3 }, "three attempts after the first wave")
	for i := range 3 {
		finishedBy(t, store, "A", fmt.Sprintf("a-fast-%d", i), fast.url, job.StatusSucceeded)
	}
	testkit.Eventually(t, time.Minute, func() bool { return fast.count() == 3 }, "A's callbacks to the other receiver delivered")
	// One at a time, each attempt starts as the one before times out: two arriving
	// within half the timeout of each other were under way at once.
	if g, ok := hang.gap(); !ok || g < timeout/2 {
		t.Errorf("after the first wave, two requests reached the receiver that hangs %v apart, want one at a time, %v apart", g, timeout)
	}
	var attempts int
	for i := range jobs {
		rec, err := store.Get(context.Background(), fmt.Sprintf("a-%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Callback.State != job.CallbackPending {
			t.Errorf("%s: callback %+v, want pending", rec.ID, rec.Callback)
		}
		attempts += rec.Callback.Attempts
	}
	if n := hang.started.Load(); int64(attempts) > n {
		t.Errorf("the records count %d attempts, but the receiver got %d requests", attempts, n)
	}
}

// TestDispatcherSlowLaneGivesUp: callbacks held back in a slow lane until
// WEBHOOK_MAX_AGE has passed are failed without another attempt, the record saying
// they waited their turn; the others are failed as their last attempt times out.
func TestDispatcherSlowLaneGivesUp(t *testing.T) {
	store := memstore.New(memstore.Options{})
	startDispatcherWith(t, webhook.DispatcherOptions{Store: store, Queue: store,
		Sender: newSender(t, "127.0.0.1", 300*time.Millisecond), MaxAge: 1500 * time.Millisecond})
	hang := startHanging(t, webhook.DefaultConcurrency)
	const jobs = 40
	for i := range jobs {
		finishedBy(t, store, "A", fmt.Sprintf("a-%03d", i), hang.url, job.StatusSucceeded)
	}
	var waited int
	for i := range jobs {
		id := fmt.Sprintf("a-%03d", i)
		var rec job.Record
		testkit.Eventually(t, time.Minute, func() bool {
			var err error
			if rec, err = store.Get(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			return rec.Callback.State != job.CallbackPending
		}, "%s", id+"'s callback settled")
		if cb := rec.Callback; cb.State != job.CallbackFailed || !strings.Contains(cb.LastError, "given up") {
			t.Errorf("%s: callback %+v, want failed, given up", id, cb)
		} else if strings.Contains(cb.LastError, "waited its turn") {
			waited++
		}
	}
	// In 1.5 s, at most the first wave and a few attempts one at a time were made.
	if waited == 0 || hang.started.Load() >= jobs {
		t.Errorf("%d callbacks given up having waited their turn, %d requests made, want some waiting and fewer requests than %d callbacks", waited, hang.started.Load(), jobs)
	}
}

// TestDispatcherRefusedAddress: a callback whose host resolves to an address the list
// refuses (localhost under *) fails at its first attempt, which reaches nothing, the
// record saying why; it is not retried.
func TestDispatcherRefusedAddress(t *testing.T) {
	store := memstore.New(memstore.Options{})
	obs := &counts{attempts: map[string]int{}, done: map[job.CallbackState]int{}}
	startDispatcher(t, store, newSender(t, "*", 5*time.Second), obs)
	fast := startQuick(t)
	url := strings.Replace(fast.url, "127.0.0.1", "localhost", 1)
	finished(t, store, "refused", url, job.StatusSucceeded)
	var rec job.Record
	testkit.Eventually(t, time.Minute, func() bool {
		var err error
		if rec, err = store.Get(context.Background(), "refused"); err != nil {
			t.Fatal(err)
		}
		return rec.Callback.State != job.CallbackPending
	}, "the callback settled")
	cb := rec.Callback
	if cb.State != job.CallbackFailed || cb.Attempts != 1 || !strings.Contains(cb.LastError, "not retried") || !strings.Contains(cb.LastError, "localhost") {
		t.Errorf("callback %+v, want failed after 1 attempt, saying localhost was refused", cb)
	}
	if n := fast.count(); n != 0 {
		t.Errorf("the receiver was reached %d times", n)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.attempts[webhook.AttemptForbidden] != 1 || obs.done[job.CallbackFailed] != 1 {
		t.Errorf("observer heard %v and %v, want one forbidden attempt and one failed callback", obs.attempts, obs.done)
	}
}
