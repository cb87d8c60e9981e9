package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
)

// finishedChannel is where a Store of the default prefix publishes finished jobs.
const finishedChannel = redisstore.DefaultPrefix + "finished"

// TestFinishedPublishes: the write that makes a record final publishes its id, once;
// the writes before and after it publish nothing.
func TestFinishedPublishes(t *testing.T) {
	srv := redistest.Start(t)
	s := redisstore.New(srv.Client(), redisstore.Options{})
	ctx := context.Background()
	ps := srv.Client().Subscribe(ctx, finishedChannel)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		t.Fatal(err)
	}
	if err := s.Create(ctx, newRecord("a")); err != nil {
		t.Fatal(err)
	}
	for _, st := range []job.Status{job.StatusPending, job.StatusRunning, job.StatusSucceeded} {
		if _, err := s.Update(ctx, "a", func(r *job.Record) error { r.Status = st; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// A write to a final record (none the job's rules allow; the store does not judge).
	if _, err := s.Update(ctx, "a", func(r *job.Record) error { r.Result = []byte(`1`); return nil }); err != nil {
		t.Fatal(err)
	}
	msg, err := ps.ReceiveMessage(ctx)
	if err != nil || msg.Payload != "a" {
		t.Fatalf("message %+v, %v", msg, err)
	}
	if m, err := ps.ReceiveTimeout(ctx, 300*time.Millisecond); err == nil {
		t.Fatalf("a second message: %+v", m)
	}
}

// startWait runs a long poll of id through a service whose waiters hear the store's
// channel, and returns once it is held.
func startWait(t *testing.T, s *redisstore.Store, w *job.Waiters, id string) <-chan job.Record {
	t.Helper()
	svc := &job.Service{Store: s, Waiters: w}
	got := make(chan job.Record, 1)
	go func() {
		rec, err := svc.Wait(context.Background(), id, 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		got <- rec
	}()
	for deadline := time.Now().Add(10 * time.Second); w.Len() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the wait was not held")
		}
	}
	return got
}

// receive waits for a wait's answer, far less than the 30 s it asked for.
func receive(t *testing.T, got <-chan job.Record) job.Record {
	t.Helper()
	select {
	case rec := <-got:
		return rec
	case <-time.After(20 * time.Second):
		t.Fatal("the wait was not woken")
		return job.Record{}
	}
}

// TestFinishedWakes: a worker's final write, through another client, wakes a wait held
// by the server's one subscription; and when that subscription is lost and comes back,
// every wait re-reads its record, so a finish published while it was away is not
// missed.
func TestFinishedWakes(t *testing.T) {
	srv := redistest.Start(t)
	server := redisstore.New(srv.Client(), redisstore.Options{})
	worker := redisstore.New(srv.Client(), redisstore.Options{})
	w := &job.Waiters{}
	ctx, stop := context.WithCancel(context.Background())
	relayed := make(chan struct{})
	go func() { defer close(relayed); server.Finished(ctx, w) }()
	defer func() { stop(); <-relayed }()

	t.Run("a final write", func(t *testing.T) {
		rec := newRecord("a")
		rec.Status = job.StatusRunning
		if err := server.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
		got := startWait(t, server, w, "a")
		if _, err := worker.Update(ctx, "a", func(r *job.Record) error { r.Status = job.StatusSucceeded; return nil }); err != nil {
			t.Fatal(err)
		}
		if rec := receive(t, got); rec.Status != job.StatusSucceeded {
			t.Fatalf("record %+v", rec)
		}
	})
	t.Run("a lost subscription", func(t *testing.T) {
		rec := newRecord("b")
		rec.Status = job.StatusRunning
		if err := server.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
		got := startWait(t, server, w, "b")
		// The record becomes final with no message, as when the message was published
		// while the subscription was down; then the subscription drops and comes back.
		rec.Status = job.StatusSucceeded
		b, err := job.EncodeJSON(rec)
		if err != nil {
			t.Fatal(err)
		}
		rc := srv.Client()
		if err := rc.Set(ctx, redisstore.DefaultPrefix+"b", b, 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
			t.Fatal(err)
		}
		if rec := receive(t, got); rec.Status != job.StatusSucceeded {
			t.Fatalf("record %+v", rec)
		}
	})
}
