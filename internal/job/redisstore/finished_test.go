package redisstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
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
	testkit.Eventually(t, 10*time.Second, func() bool { return w.Len() == 1 }, "the wait held")
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

// TestFinishedWakes: a long poll held by the server's one subscription answers as the
// job finishes, however it hears of it: a worker's final write through another client
// (the record whole, or its id alone when the record is large), a record published
// whole (answered as published: the stored one still says running), an id alone as a
// worker of an earlier version publishes it (the record is read), or nothing at all
// while the subscription was lost (when it comes back, every wait reads its record).
func TestFinishedWakes(t *testing.T) {
	srv := redistest.Start(t)
	rc := srv.Client()
	server := redisstore.New(rc, redisstore.Options{})
	worker := redisstore.New(srv.Client(), redisstore.Options{})
	w := &job.Waiters{}
	ctx, stop := context.WithCancel(context.Background())
	relayed := make(chan struct{})
	go func() { defer close(relayed); server.Finished(ctx, w) }()
	defer func() { stop(); <-relayed }()

	tests := []struct {
		name   string
		result json.RawMessage
		// finish makes rec, final and holding result, known as the case says.
		finish func(t *testing.T, rec job.Record)
	}{
		{"a final write", json.RawMessage(`1`), func(t *testing.T, rec job.Record) {
			if _, err := worker.Update(ctx, rec.ID, func(r *job.Record) error { *r = rec; return nil }); err != nil {
				t.Fatal(err)
			}
		}},
		{"a large final write", bigResult, func(t *testing.T, rec job.Record) {
			if _, err := worker.Update(ctx, rec.ID, func(r *job.Record) error { *r = rec; return nil }); err != nil {
				t.Fatal(err)
			}
		}},
		{"a published record", json.RawMessage(`"as published"`), func(t *testing.T, rec job.Record) {
			if err := rc.Publish(ctx, recordsChannel, encode(t, rec)).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"an id alone", json.RawMessage(`2`), func(t *testing.T, rec job.Record) {
			writeSilently(t, rc, rec)
			if err := rc.Publish(ctx, finishedChannel, rec.ID).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"a lost subscription", json.RawMessage(`3`), func(t *testing.T, rec job.Record) {
			writeSilently(t, rc, rec)
			if err := rc.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecord(fmt.Sprint("job-", i))
			rec.Status = job.StatusRunning
			if err := server.Create(ctx, rec); err != nil {
				t.Fatal(err)
			}
			got := startWait(t, server, w, rec.ID)
			rec.Status, rec.Result = job.StatusSucceeded, tt.result
			tt.finish(t, rec)
			if rec := receive(t, got); rec.Status != job.StatusSucceeded || !bytes.Equal(rec.Result, tt.result) {
				t.Fatalf("record %s with result %.40s", rec.Status, rec.Result)
			}
		})
	}
}

func encode(t *testing.T, rec job.Record) []byte {
	t.Helper()
	b, err := job.EncodeJSON(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeSilently stores rec with no message, as a write whose message was lost.
func writeSilently(t *testing.T, rc *redis.Client, rec job.Record) {
	t.Helper()
	if err := rc.Set(context.Background(), redisstore.DefaultPrefix+rec.ID, encode(t, rec), 0).Err(); err != nil {
		t.Fatal(err)
	}
}
