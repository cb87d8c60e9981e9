package redisstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
)

// finishedChannel and recordsChannel are where a Store of the default prefix publishes
// the ids of finished jobs and their final records.
const (
	finishedChannel = redisstore.DefaultPrefix + "finished"
	recordsChannel  = redisstore.DefaultPrefix + "final"
)

// bigResult is a result too large to be published whole (over 64 KiB).
var bigResult = json.RawMessage(`"` + strings.Repeat("x", 70<<10) + `"`)

// TestFinishedPublishes: the write that makes a record final publishes the record
// itself, when it is small, and then its id, once each; the writes before and after it
// publish nothing. A large record is published as its id only.
func TestFinishedPublishes(t *testing.T) {
	tests := []struct {
		name   string
		result json.RawMessage
		whole  bool
	}{
		{"a small record", json.RawMessage(`{"y":2}`), true},
		{"a large record", bigResult, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t)
			s := redisstore.New(srv.Client(), redisstore.Options{})
			ctx := context.Background()
			ps := srv.Client().Subscribe(ctx, recordsChannel, finishedChannel)
			defer ps.Close()
			for range 2 { // the subscriptions' confirmations
				if _, err := ps.Receive(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Create(ctx, newRecord("a")); err != nil {
				t.Fatal(err)
			}
			for _, st := range []job.Status{job.StatusPending, job.StatusRunning, job.StatusSucceeded} {
				if _, err := s.Update(ctx, "a", func(r *job.Record) error {
					r.Status = st
					if st.Final() {
						r.Result = tt.result
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			// A write to a final record (none the job's rules allow; the store does not judge).
			if _, err := s.Update(ctx, "a", func(r *job.Record) error { r.Error = "later"; return nil }); err != nil {
				t.Fatal(err)
			}
			if tt.whole {
				msg, err := ps.ReceiveMessage(ctx)
				if err != nil || msg.Channel != recordsChannel {
					t.Fatalf("message %+v, %v; want the record first", msg, err)
				}
				var rec job.Record
				if err := json.Unmarshal([]byte(msg.Payload), &rec); err != nil || rec.ID != "a" || rec.Status != job.StatusSucceeded || string(rec.Result) != string(tt.result) || rec.Error != "" {
					t.Fatalf("published record %s, %v", msg.Payload, err)
				}
			}
			msg, err := ps.ReceiveMessage(ctx)
			if err != nil || msg.Channel != finishedChannel || msg.Payload != "a" {
				t.Fatalf("message %+v, %v; want the id", msg, err)
			}
			if m, err := ps.ReceiveTimeout(ctx, 300*time.Millisecond); err == nil {
				t.Fatalf("a further message: %+v", m)
			}
		})
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
	t.Run("a large final write", func(t *testing.T) {
		rec := newRecord("big")
		rec.Status = job.StatusRunning
		if err := server.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
		got := startWait(t, server, w, "big")
		if _, err := worker.Update(ctx, "big", func(r *job.Record) error {
			r.Status, r.Result = job.StatusSucceeded, bigResult
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if rec := receive(t, got); rec.Status != job.StatusSucceeded || len(rec.Result) != len(bigResult) {
			t.Fatalf("record %s with %d bytes of result", rec.Status, len(rec.Result))
		}
	})
	// The wait answers with the record it hears of and reads nothing more: the stored
	// one still says running here.
	t.Run("a published record", func(t *testing.T) {
		rec := newRecord("c")
		rec.Status = job.StatusRunning
		if err := server.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
		got := startWait(t, server, w, "c")
		rec.Status, rec.Result = job.StatusSucceeded, json.RawMessage(`"as published"`)
		publish(t, srv.Client(), recordsChannel, rec)
		if rec := receive(t, got); rec.Status != job.StatusSucceeded || string(rec.Result) != `"as published"` {
			t.Fatalf("record %+v", rec)
		}
	})
	// A worker of an earlier version publishes ids only: the wait reads the record.
	t.Run("an id alone", func(t *testing.T) {
		rec := newRecord("d")
		rec.Status = job.StatusRunning
		if err := server.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
		got := startWait(t, server, w, "d")
		rec.Status = job.StatusSucceeded
		rc := srv.Client()
		b, err := job.EncodeJSON(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Set(ctx, redisstore.DefaultPrefix+"d", b, 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.Publish(ctx, finishedChannel, "d").Err(); err != nil {
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

// publish sends rec on channel as a Store's final write would.
func publish(t *testing.T, rc *redis.Client, channel string, rec job.Record) {
	t.Helper()
	b, err := job.EncodeJSON(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Publish(context.Background(), channel, b).Err(); err != nil {
		t.Fatal(err)
	}
}
